/*
 * A topology of any kind (topo_read.h): the kinds read from a file
 * (topofile.c, topo_hpcc.c), the others generated (topologies/topo_gen.c).
 */
#include "sim/engine/diag.h"
#include "sim/readers/topo_read.h"
#include "topologies/topo.h"

int topo_build(const struct topo_spec *spec, struct topo **out, struct diag *d)
{
	int err;

	if (spec->kind != TOPO_FILE && spec->kind != TOPO_HPCC)
		return topo_generate(spec, out, d);
	*out = NULL;
	err = spec->kind == TOPO_FILE ? topo_file_load(spec, out, d) : topo_hpcc_load(spec, out, d);
	if (!err)
		err = topo_set_links(spec, out, d);
	return err;
}
