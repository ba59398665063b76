// SPDX-License-Identifier: GPL-2.0
/* records.c - pure helpers of npuctl's records (records.h). */
#include "records.h"

int npuctl_slot_port(unsigned int slot)
{
	return slot < NPUFLOW_MAX_PORTS ? (int)slot + 1 : -1;
}
