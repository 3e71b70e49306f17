/* decimal.h -- the exact fast path of decimal-to-double conversion, shared
 * by the JSON arena's number reader (json_arena.c) and the CSV importer's
 * (import/csv.c): each scans its own grammar into (m, frac, sign) and asks
 * here whether the quotient is strtod's answer without calling strtod. */
#ifndef SIM_DECIMAL_H
#define SIM_DECIMAL_H

#include <stdbool.h>
#include <stdint.h>

/* The decimal m / 10^@frac (negated with @neg) into @out when m <= 2^53
 * and frac <= 22: then m and 10^frac are both exact doubles and one IEEE
 * division rounds their quotient correctly, which is what strtod returns
 * for the text (Clinger's fast path).  False, @out untouched, otherwise:
 * the caller asks strtod.  The caller guarantees m did not wrap: it has at
 * most 19 significant digits. */
static inline bool sim_decimal_fast(uint64_t m, unsigned frac, bool neg,
                                    double *out)
{
    static const double pow10[23] = {
        1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (m > (UINT64_C(1) << 53) || frac > 22)
        return false;
    const double d = (double)m / pow10[frac];
    *out = neg ? -d : d;
    return true;
}

#endif /* SIM_DECIMAL_H */
