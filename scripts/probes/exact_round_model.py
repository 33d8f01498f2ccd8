"""A model, in Python integers, of the carries and the rounding that one warp runs on V10's state
(csrc/kernels/exact_round.cuh): lane l's limbs l, l + 32 and l + 64 as 96 word slots, the two passes
of carry lookahead over the limbs' masks, then the rounding rule of exact.h (cured_exact_round_top),
checked against Python's integers on random and adversarial states (runs of all-ones and of zero
limbs, values near halfway, cancellation). A design check for changes to those passes: it found that
a limb at 1 that owes a borrow also propagates one (2026-11-26) before any GPU ran the code. The GPU
tests (tests/test_exact.py) test the kernel itself. About 6 s:

    python3 scripts/probes/exact_round_model.py
"""
import math
import random

LIMBS, SLOTS = 68, 96  # the state's limbs; a warp's 32 lanes x 3 slots
WORD = (1 << 32) - 1
MASKS = (1 << 128) - 1  # the kernel's masks: three ballots in an unsigned __int128


def signed32(x):
    x &= WORD
    return x - (1 << 32) if x >> 31 else x


def carries_into(generate, propagate):
    """exact_round.cuh's carries_into: the carry into each limb, as a mask."""
    either = generate | propagate
    return ((generate + either) ^ generate ^ either) & MASKS


def normalize(limbs):
    """The state's int64 limbs as 68 words of its two's complement modulo 2^2176, as the warp makes them."""
    word = [limbs[k] & WORD if k < LIMBS else 0 for k in range(SLOTS)]
    high = [signed32(limbs[k] >> 32) if k < LIMBS else 0 for k in range(SLOTS)]
    generates = propagates = borrowed = 0
    for k in range(SLOTS):
        received = high[k - 1] if 0 < k < LIMBS else 0
        total = word[k] + (received & WORD)
        word[k] = total & WORD
        generates |= (total >> 32) << k
        propagates |= (word[k] == WORD) << k
        borrowed |= (received < 0) << k
    carry = carries_into(generates, propagates)
    borrow_out = (borrowed << 1) & MASKS
    zeros = ones = 0
    for k in range(SLOTS):
        word[k] = (word[k] + ((carry >> k) & 1)) & WORD
        zeros |= (word[k] == 0) << k
        ones |= (word[k] == 1) << k
    borrow = carries_into(zeros & borrow_out, (zeros & ~borrow_out & MASKS) | (ones & borrow_out))
    for k in range(SLOTS):
        word[k] = (word[k] - ((borrow_out >> k) & 1) - ((borrow >> k) & 1)) & WORD
    return word[:LIMBS]


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


def warp_round(limbs, bits):
    """What the warp stores: the state rounded once (0.0 for an exact zero; flags aside)."""
    word = normalize(limbs)
    negative = word[LIMBS - 1] >> 31
    nonzero = [k for k in range(LIMBS) if word[k]]
    if not nonzero:
        return 0.0
    low = nonzero[0]
    magnitude = [w if not negative or k < low else (-w) & WORD if k == low else ~w & WORD for k, w in enumerate(word)]
    top = max(k for k in range(LIMBS) if magnitude[k])
    at = lambda k: magnitude[k] if k >= 0 else 0
    lowest = 32 * low + ((word[low] & -word[low]).bit_length() - 1)
    return round_top(negative, top, at(top), at(top - 1), at(top - 2), lowest, bits)


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


def main():
    rng = random.Random(1)
    carried = rounded = 0
    for trial in range(60000):
        limbs = random_state(rng, trial % 5)
        value = value_of(limbs)
        if abs(value) >= 2**2162:  # beyond any state V10 makes
            continue
        word = normalize(limbs)
        got = value_of(word)
        assert (got - (1 << 2176) if got >> 2175 else got) == value, limbs
        carried += 1
        bits = rng.choice([16, 32, 64])
        assert warp_round(limbs, bits) == reference(value, bits), (limbs, bits)
        rounded += 1
    print("carries and rounding equal Python's integers on", carried, "states")


if __name__ == "__main__":
    main()
