/* half.h: IEEE half-precision bits to float, exactly (every half is a float), as CUDA's
 * __half2float converts them: for the CPU's order models. */
#ifndef CURED_HALF_H
#define CURED_HALF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float cured_half_to_float(uint16_t h) {
    const uint32_t sign = (uint32_t)(h >> 15) << 31;
    const uint32_t exponent = (h >> 10) & 0x1f;
    const uint32_t mantissa = h & 0x3ff;
    uint32_t bits;
    if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13); /* inf or NaN, payload kept */
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else { /* subnormal half: mantissa x 2^-24, exact in float */
        float magnitude = ldexpf((float)mantissa, -24);
        memcpy(&bits, &magnitude, sizeof bits);
        bits |= sign;
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

#endif
