/*
 * The models' rig, for the tests of a model or a topology that link only
 * the layers up to it (engine, topologies, models): generated topologies,
 * ports joined as net.c joins them, and hosts the test drives; and the
 * source root's files.
 */
#ifndef ROCESIM_TEST_RIG_H
#define ROCESIM_TEST_RIG_H

#include <stddef.h>
#include <stdint.h>

#include "models/link.h"
#include "models/mctx.h"
#include "topologies/topo.h"

/* @rel under the source root ($ROCESIM_SRC, set by meson test); 4
 * rotating buffers. Asserts that the variable is set. */
const char *ts_src(const char *rel);
/*
 * The models' rig: a model built from its params struct and driven by the
 * test, without a scenario or the fabric. An event queue, a model context
 * and the ports of a topology joined to their peers as net.c joins them;
 * the ports' owners are the test's (the model under test, or rig_hosts).
 */
struct rig {
	struct evq *q;
	struct mctx ctx;
	struct topo *topo;
	struct topo_routes *routes;
	struct port *ports; /* one per topology port */
};

/* A generated topology's spec of @kind: host links at @link_bps over 2 m of
 * cable, switch links at @uplink_bps over @uplink_mm; the counts are the
 * caller's to set. */
struct topo_spec ts_topo_spec(enum topo_kind kind, uint64_t link_bps, uint64_t uplink_bps,
			      uint64_t uplink_mm);

/* @build (named @name in the failure) on @s, asserting that it succeeds. */
typedef int (*ts_topo_fn)(const struct topo_spec *s, struct topo **out, struct diag *d);
struct topo *ts_topo_with(ts_topo_fn build, const char *name, const struct topo_spec *s);
/* topo_generate(@s), asserting that it succeeds. */
struct topo *ts_topo_build(const struct topo_spec *s);
/* topo_build(@s) of the readers, for a kind read from a file too
 * (rig_read.c, which links sim/readers); asserts that it succeeds. */
struct topo *ts_topo_read(const struct topo_spec *s);

/* Two hosts h0 and h1 on one link, back to back. */
struct topo *rig_pair(uint64_t rate_bps, simtime_t delay);
/* Hosts h0.. around one switch sw0 (ports sw0:h0, sw0:h1, ... in order). */
struct topo *rig_star(uint32_t hosts, uint64_t rate_bps, simtime_t delay);
/* Join the ports of @t (the rig takes it); each reacts to PAUSE in
 * pfc_response_delay of its rate. Asserts success. */
void rig_init(struct rig *r, struct topo *t);
/* Run the events due up to @until (SIMTIME_NEVER: all there are); asserts
 * that none failed. */
void rig_run(struct rig *r, simtime_t until);
void rig_fini(struct rig *r);
/* The index of the port named @name ("sw0:h1"); asserts it exists. */
uint32_t rig_port(const struct rig *r, const char *name);

/*
 * A test's end of a link: sends data packets back to back on its own
 * priority (obeying PAUSE on it), and counts the data that arrives.
 */
struct rig_host {
	struct port *port;
	struct evq_timer start;
	uint32_t to_send, sent; /* data packets still to send, and sent */
	uint16_t payload;
	uint32_t dst;
	uint8_t dscp, prio;
	uint64_t rx_packets, rx_bytes; /* data received: packets and frame bytes */
	simtime_t last_rx;
};

/* Own port @port of @r. */
void rig_host_init(struct rig_host *h, struct rig *r, uint32_t port);
/* From @at, send @n packets of @payload bytes to host @dst with @dscp on
 * priority @prio, back to back (and obey PAUSE on @prio). */
void rig_host_send(struct rig_host *h, simtime_t at, uint32_t n, uint16_t payload, uint32_t dst,
		   uint8_t dscp, uint8_t prio);

#endif
