/* ts_topo_read (rig.h): a topology of any kind, those read from a file too. */
#include "rig.h"

#include "sim/readers/topo_read.h"

struct topo *ts_topo_read(const struct topo_spec *s)
{
	return ts_topo_with(topo_build, "topo_build", s);
}
