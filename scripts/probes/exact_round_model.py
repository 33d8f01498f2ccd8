"""A model, in Python integers, of the carries and the rounding that one warp runs on V10's state
(csrc/kernels/exact_round.cuh): a window of the limbs, lane l's limbs first + l, first + l + 32, ...
as word slots (the whole state: limbs 0 to 67 in 96 slots; float32's and float16's sums: limbs 28 to
59, one slot a lane), the two passes of carry lookahead over the limbs' masks, then the rounding rule
of exact.h (cured_exact_round_top), checked against Python's integers on random and adversarial states
(runs of all-ones and of zero limbs, values near halfway, cancellation). A design check for changes
to those passes: it found that a limb at 1 that owes a borrow also propagates one (2026-11-26) before
any GPU ran the code. The GPU tests (tests/test_exact.py) test the kernel itself. About 10 s:

    python3 scripts/probes/exact_round_model.py
"""
import math
import random

LIMBS = 68  # the state's limbs
WORD = (1 << 32) - 1
WHOLE, NARROW = (0, 3), (28, 1)  # windows (first limb, slots a lane): the whole state; float32's sums


def signed32(x):
    x &= WORD
    return x - (1 << 32) if x >> 31 else x


def carries_into(generate, propagate, masks):
    """exact_round.cuh's carries_into: the carry into each limb, as a mask of `masks` bits."""
    either = generate | propagate
    return ((generate + either) ^ generate ^ either) & ((1 << masks) - 1)


def normalize(limbs, window=WHOLE):
    """The window's limbs (int64s; every limb outside it 0) as words of its two's complement modulo
    2^(32 x its limbs), as the warp makes them."""
    first, slots = window
    width = 32 * slots  # word slots, and the masks' bits (the kernel's: 32, 64 or 128)
    masks = 128 if slots == 3 else width
    end = min(first + width, LIMBS) - first  # the window's limbs
    word = [limbs[first + k] & WORD if k < end else 0 for k in range(width)]
    high = [signed32(limbs[first + k] >> 32) if k < end else 0 for k in range(width)]
    generates = propagates = borrowed = 0
    for k in range(width):
        received = high[k - 1] if 0 < k < end else 0
        total = word[k] + (received & WORD)
        word[k] = total & WORD
        generates |= (total >> 32) << k
        propagates |= (word[k] == WORD) << k
        borrowed |= (received < 0) << k
    carry = carries_into(generates, propagates, masks)
    borrow_out = (borrowed << 1) & ((1 << masks) - 1)
    zeros = ones = 0
    for k in range(width):
        word[k] = (word[k] + ((carry >> k) & 1)) & WORD
        zeros |= (word[k] == 0) << k
        ones |= (word[k] == 1) << k
    borrow = carries_into(zeros & borrow_out, (zeros & ~borrow_out & ((1 << masks) - 1)) | (ones & borrow_out), masks)
    for k in range(width):
        word[k] = (word[k] - ((borrow_out >> k) & 1) - ((borrow >> k) & 1)) & WORD
    return word[:end]


def round_top(negative, top, word_top, word_1, word_2, lowest, bits):
    """exact.h's cured_exact_round_top for a result of `bits` (16, 32 or 64)."""
    precision, max_exponent = {16: (11, 15), 32: (24, 127), 64: (53, 1023)}[bits]
    min_exponent = 2 - (max_exponent + 1)
    highest = 32 * top + word_top.bit_length() - 1
    ulp = max(highest - (precision - 1), min_exponent - (precision - 1) + 1074)
    upper = word_top << 32 | word_1
    shift = ulp - 32 * (top - 2)
    assert shift >= 12
    if shift >= 96:
        q = 0
    elif shift >= 32:
        q = upper >> (shift - 32)
    else:
        q = (upper << (32 - shift) | word_2 >> shift) & ((1 << 64) - 1)
    below = shift - 1
    round_bit = 0 if below >= 96 else (upper >> (below - 32)) & 1 if below >= 32 else (word_2 >> below) & 1
    if round_bit and (lowest < ulp - 1 or q & 1):
        q += 1
    value = math.inf if q and q.bit_length() - 1 + ulp - 1074 > max_exponent else math.ldexp(float(q), ulp - 1074)
    return -value if negative else value


def warp_round(limbs, bits, window=WHOLE):
    """What the warp stores: the state rounded once (0.0 for an exact zero; flags aside)."""
    first = window[0]
    word = normalize(limbs, window)
    negative = word[-1] >> 31
    nonzero = [k for k in range(len(word)) if word[k]]
    if not nonzero:
        return 0.0
    low = nonzero[0]
    magnitude = [w if not negative or k < low else (-w) & WORD if k == low else ~w & WORD for k, w in enumerate(word)]
    top = max(k for k in range(len(word)) if magnitude[k])
    at = lambda k: magnitude[k] if k >= 0 else 0
    lowest = 32 * (first + low) + ((word[low] & -word[low]).bit_length() - 1)
    return round_top(negative, first + top, at(top), at(top - 1), at(top - 2), lowest, bits)


def reference(value, bits):
    """value x 2^-1074 rounded once to nearest, ties to even, with Python's integers."""
    if value == 0:
        return 0.0
    precision, max_exponent = {16: (11, 15), 32: (24, 127), 64: (53, 1023)}[bits]
    magnitude = abs(value)
    ulp = max(magnitude.bit_length() - precision, 2 - (max_exponent + 1) - (precision - 1) + 1074)
    q, rest = divmod(magnitude, 1 << ulp)
    if ulp >= 1 and (rest > 1 << (ulp - 1) or (rest == 1 << (ulp - 1) and q & 1)):
        q += 1
    result = math.inf if q and q.bit_length() - 1 + ulp - 1074 > max_exponent else math.ldexp(float(q), ulp - 1074)
    return -result if value < 0 else result


def value_of(limbs):
    return sum(v << (32 * k) for k, v in enumerate(limbs))


def random_state(rng, kind):
    if kind == 0:  # any int64 limbs
        return [rng.randrange(-2**62, 2**62) for _ in range(LIMBS)]
    if kind == 1:  # runs that carry and borrow
        return [rng.choice([0, WORD, -1, 1, 1 << 32, -(1 << 32)]) for _ in range(LIMBS)]
    if kind == 2:  # one unit at one limb, all-ones or zeros below it
        limbs = [rng.choice([WORD, 0]) for _ in range(LIMBS)]
        limbs[rng.randrange(LIMBS)] = rng.choice([1, -1])
        return limbs
    if kind == 3:  # near halfway: a 60-bit value somewhere, nudged by one unit or a power of two
        top = rng.randrange(2, 60)
        value = rng.randrange(1 << 60) << (32 * top - 60 + rng.randrange(32))
        value = (value + rng.choice([0, 1, -1, 2**rng.randrange(40)])) * rng.choice([1, -1])
        return [(value >> (32 * k)) & WORD if k < LIMBS - 1 else value >> (32 * k) for k in range(LIMBS)]
    # a few limbs of a few bits
    return [rng.randrange(-2**40, 2**40) if rng.random() < 0.3 else 0 for _ in range(LIMBS)]


def narrow_state(rng, kind):
    """A state as float32 and float16 sums leave it: limbs 28 to 41 alone (v10_exact.cu), below 2^1266."""
    while True:
        limbs, top = random_state(rng, kind), rng.randrange(30, 42)
        limbs = [v if 28 <= k <= top else 0 for k, v in enumerate(limbs)]
        if abs(value_of(limbs)) < 2**1266:
            return limbs


def main():
    rng = random.Random(1)
    for window, make, trials in ((WHOLE, random_state, 60000), (NARROW, narrow_state, 40000)):
        first, slots = window
        width = min(first + 32 * slots, LIMBS) - first
        carried = 0
        for trial in range(trials):
            limbs = make(rng, trial % 5)
            value = value_of(limbs)
            if abs(value) >= 2**2162:  # beyond any state V10 makes
                continue
            got = value_of(normalize(limbs, window)) << (32 * first)
            modulus = 1 << (32 * (first + width))
            assert (got - modulus if got >= modulus // 2 else got) == value, limbs
            bits = rng.choice([16, 32, 64])
            assert warp_round(limbs, bits, window) == reference(value, bits), (limbs, bits)
            carried += 1
        print(f"limbs {first} to {first + width - 1}: carries and rounding equal Python's integers on {carried} states")


if __name__ == "__main__":
    main()
