/*
 * The topology file a scenario names (topology.file), read for either
 * reader of a file kind (topofile.c, topo_hpcc.c); topo_build.c, above
 * them, builds a topology of any kind.
 */
#include <errno.h>

#include "sim/engine/diag.h"
#include "sim/engine/textfile.h"
#include "sim/readers/topo_read.h"
#include "topologies/topo.h"

int topo_read_spec_file(const struct topo_spec *spec, const char *kind, char **text, size_t *len,
			struct diag *d)
{
	const char *file = spec->file;
	int err;

	if (!file || !file[0]) {
		diag_set(d, "", 0, "topology.file", "kind %s needs the path of a topology file",
			 kind);
		return -EINVAL;
	}
	err = textfile_read(file, text, len);
	if (err)
		/* the scenario's topology.file is at fault: its caller names that line */
		diag_set(d, "", 0, "topology.file", "cannot read \"%s\": %s", file,
			 textfile_strerror(err));
	return err;
}
