/*
 * NCCL_IB_HCA, as NCCL reads it (NCCL's "Environment Variables" page;
 * src/misc/utils.cc, matchIfList): a comma-separated list of HCA names,
 * each optionally with ":port"; a leading '^' keeps the HCAs the list does
 * not match, a leading '=' (after any '^') makes the names exact, where
 * otherwise a name is a prefix ("mlx5_1" also matches mlx5_10 to mlx5_19).
 * An entry with a port matches that port only. A server's NIC i is the
 * device mlx5_<i>, port 1 (the one port a NIC has here).
 */
#ifndef ROCESIM_NCCL_HCA_H
#define ROCESIM_NCCL_HCA_H

#include <stddef.h>
#include <stdint.h>

/*
 * The NICs of a server with @n_nics (at most 64) that @value lets NCCL use,
 * as a mask (bit i: mlx5_<i>). 0, or -EINVAL with @why set (the list
 * leaves no NIC; an empty entry matches none, as NCCL skips it).
 */
int nccl_hca_mask(const char *value, uint32_t n_nics, uint64_t *mask, char *why, size_t len);

/*
 * The entries of @value (without its ^ and =) that match none of a
 * server's @n_nics NICs, comma-separated into @out ("" when each matches
 * one); how many.
 */
unsigned nccl_hca_unmatched(const char *value, uint32_t n_nics, char *out, size_t len);

#endif
