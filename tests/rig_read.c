/* ts_topo_read (rig.h): a topology of any kind, those read from a file too. */
#include "rig.h"

#include <criterion/criterion.h>

#include "sim/readers/topo_read.h"

struct topo *ts_topo_read(const struct topo_spec *s)
{
	struct topo *t = NULL;
	struct diag d = {0};
	char buf[1024];
	int err = topo_build(s, &t, &d);

	cr_assert_eq(err, 0, "topo_build: %d %s", err, diag_str(&d, buf, sizeof(buf)));
	cr_assert_not_null(t);
	return t;
}
