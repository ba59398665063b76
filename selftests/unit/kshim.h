/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim.h - stand-ins of the kernel's names that a driver file which is
 * not pure uses, for the unit tests that include it (include this first).
 *
 * The file's own #includes of kernel headers (<linux/atomic.h>,
 * <linux/device.h>, <linux/log2.h>, <linux/minmax.h>) find empty files
 * that the Makefile makes under build/kshim/linux/: everything they stand
 * for is here.  The tests run on one thread, so atomic64_t is a plain
 * counter; struct device is a log of one line, which dev_err_ratelimited()
 * formats into (so that a format and its arguments are checked as the
 * kernel's are) and counts.
 */
#ifndef _KSHIM_H
#define _KSHIM_H

#include <stdio.h>

/* what the kernel's build includes into every file */
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define BUILD_BUG_ON(cond)	static_assert(!(cond), #cond)

/* <linux/atomic.h>: the kernel's own type name */
typedef struct {
	long long counter;
} atomic64_t;

static inline void atomic64_inc(atomic64_t *v)
{
	v->counter++;
}

static inline long long atomic64_read(const atomic64_t *v)
{
	return v->counter;
}

/* <linux/device.h> */
struct device {
	char msg[160];
	unsigned int logged;
};

#define dev_err_ratelimited(dev, fmt, ...)				\
	do {								\
		struct device *d__ = (dev);				\
									\
		snprintf(d__->msg, sizeof(d__->msg), fmt, ##__VA_ARGS__); \
		d__->logged++;						\
	} while (0)

/*
 * <linux/log2.h>: a macro, so that BUILD_BUG_ON() (a static_assert here)
 * can test a constant with it; the kernel's inline needs the optimiser.
 */
#define is_power_of_2(n)	(__builtin_popcountll(n) == 1)

/* <linux/minmax.h>, without the kernel's type check */
#define min(a, b)	({ typeof(a) a__ = (a); typeof(b) b__ = (b); \
			   a__ < b__ ? a__ : b__; })
#define min3(a, b, c)	min(min(a, b), c)

#endif /* _KSHIM_H */
