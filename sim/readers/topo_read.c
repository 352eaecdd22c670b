/*
 * A topology of any kind (topo_read.h): the kinds read from a file here,
 * the others generated (topologies/topo_gen.c); and the topology file a
 * scenario names, read for either reader.
 */
#include <errno.h>

#include "sim/engine/diag.h"
#include "sim/engine/textfile.h"
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
