/*
 * SONiC config_db.json: what a switch's CONFIG_DB says about lossless
 * traffic (SONiC's Configuration.md, qos_config.j2 and buffermgr), read
 * with jansson. Plain data for the scenario loader (switch.sonic),
 * `rocesim import sonic` and `rocesim check` (sonic_cfg.h).
 */
#ifndef ROCESIM_SONIC_H
#define ROCESIM_SONIC_H

#include <stddef.h>

#include "sim/engine/diag.h"
#include "sim/readers/sonic_cfg.h"

/*
 * Read @file. Returns 0, or -EINVAL with @d naming the file, the line for
 * JSON syntax errors, and a path such as "BUFFER_PROFILE|pg_lossless|pool"
 * for what is missing, inconsistent or not a number; -ENOMEM. The values'
 * lines (struct sonic_at) are known only when the text is (sonic_read_text).
 */
int sonic_read(const char *file, struct sonic_cfg *out, struct diag *d);

/*
 * The same from @len bytes of @text; @name stands for the file in @d. Errors
 * and every struct sonic_at then also give the line of the table, row or
 * field they name.
 */
int sonic_read_text(const char *name, const char *text, size_t len, struct sonic_cfg *out,
		    struct diag *d);

#endif
