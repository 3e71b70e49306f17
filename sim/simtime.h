/* simtime.h -- simulated time for hqsim.
 *
 * Simulated time is an unsigned 64-bit count of nanoseconds since the start of
 * the simulation.  It is never a double: integer time makes event order exact
 * and runs reproducible.  2^64 ns is about 584 years, so overflow is not a
 * practical concern; SIM_TIME_NEVER marks "no time" (an event that is not
 * scheduled, a field that was not given).
 */
#ifndef SIM_SIMTIME_H
#define SIM_SIMTIME_H

#include <stdint.h>

typedef uint64_t SimTime;

#define SIM_TIME_NEVER UINT64_MAX

#define SIM_NS(x) ((SimTime)(x))
#define SIM_US(x) ((SimTime)(x)*1000u)
#define SIM_MS(x) ((SimTime)(x)*1000000u)
#define SIM_S(x) ((SimTime)(x)*1000000000u)

/* Convert a non-negative number of microseconds (possibly fractional) to
 * SimTime, rounding to the nearest nanosecond. */
static inline SimTime sim_time_from_us(double us)
{
    return (SimTime)(us * 1000.0 + 0.5);
}

static inline double sim_time_to_us(SimTime t)
{
    return (double)t / 1000.0;
}

static inline double sim_time_to_ms(SimTime t)
{
    return (double)t / 1e6;
}

#endif /* SIM_SIMTIME_H */
