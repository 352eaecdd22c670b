/*
 * What a SONiC config_db.json is read into (sonic.h: sonic_read): the
 * lossless class port by port and the values most ports have, each with
 * where it was read; and the look-ups on its ports (sonic_ports.c). Plain
 * data, filled in by the readers of the tables (sonic_ports.c,
 * sonic_buffers.c, sonic_queues.c, sonic_device.c).
 */
#ifndef ROCESIM_SONIC_CFG_H
#define ROCESIM_SONIC_CFG_H

#include <stdint.h>

#define SONIC_WHERE 160
#define SONIC_NAME 48	      /* a port or device name, NUL included */
#define SONIC_PORTS_MAX 512   /* ports of one switch */
#define SONIC_PROFILES_MAX 32 /* lossless PG profiles in use */
#define SONIC_MAPS_MAX 16     /* DSCP_TO_TC_MAPs in use */
#define SONIC_WREDS_MAX 16    /* WRED profiles on lossless queues */

/*
 * Where a value was read: "TABLE|key|field" (names cut short, as in
 * messages) and its line in the file, 0 when not known (the text was not
 * at hand, or the key is spelt with JSON escapes).
 */
struct sonic_at {
	char where[SONIC_WHERE];
	int line;
};

/* A buffer profile bound to some port's lossless PGs (BUFFER_PROFILE|name). */
struct sonic_profile_use {
	char name[96];
	uint64_t xon, xon_offset, xoff, size, static_th; /* bytes */
	int has_xon, has_xon_offset, has_xoff, has_dynamic_th, has_static_th;
	int dynamic_th;
	int line, xoff_line, xon_line, xon_offset_line, th_line; /* 0: not known */
};

/* A DSCP_TO_TC_MAP some port names (PORT_QOS_MAP dscp_to_tc_map). */
struct sonic_map_use {
	char name[64];
	uint8_t to_tc[64];
	uint64_t given; /* bit d: the map names DSCP d */
	int line;	/* of DSCP_TO_TC_MAP|name */
	int dscp_line[64];
};

/* A WRED_PROFILE bound to some port's lossless queue (QUEUE wred_profile). */
struct sonic_wred_use {
	char name[64];
	uint64_t kmin, kmax;			       /* green_min/max_threshold, bytes */
	double pmax;				       /* green_drop_probability / 100 */
	int ecn_marking;			       /* ecn marks green packets */
	int kmin_line, kmax_line, pmax_line, ecn_line; /* 0: not known */
};

/* SCHEDULER types a QUEUE row may name. */
enum sonic_sched { SONIC_SCHED_NONE, SONIC_SCHED_STRICT, SONIC_SCHED_WRR, SONIC_SCHED_DWRR };

/*
 * One port of PORT and what the other tables say of it. A field that no
 * table gives for this port is 0 (-1 for the indices); the switch-wide
 * fields of struct sonic_cfg are the values most ports have.
 */
struct sonic_port {
	char name[SONIC_NAME];
	int line; /* of PORT|name */
	uint64_t speed_bps;
	uint32_t mtu;
	int admin_down; /* admin_status "down" */
	/* CABLE_LENGTH */
	int has_cable;
	uint64_t cable_mm;
	int cable_line;
	/* PORT_QOS_MAP */
	int has_pfc_enable;
	uint8_t pfc_enable;
	int pfc_line;
	int dscp_map; /* index in sonic_cfg.maps, -1: the port names none */
	int map_line; /* of its dscp_to_tc_map field */
	uint8_t tc_to_pg[8], tc_to_queue[8];
	/* BUFFER_PG: the row of its lowest lossless PG */
	int profile;		      /* index in sonic_cfg.profiles, -1: none (or "NULL") */
	int pg_null;		      /* its profile is "NULL": SONiC computes the headroom */
	uint8_t lossless_pgs;	      /* the PGs its PFC priorities reach */
	char pg_row[SONIC_NAME + 16]; /* the BUFFER_PG key, e.g. "Ethernet16|3-4" */
	int pg_line;
	/* QUEUE -> SCHEDULER, per queue */
	uint8_t sched[8];   /* enum sonic_sched */
	uint16_t weight[8]; /* WRR/DWRR weight, 0 when not given */
	int dwrr;	    /* a queue is WRR or DWRR */
	int sched_line;	    /* of its first QUEUE row with a scheduler */
	int queue_line[8];  /* of each queue's QUEUE scheduler field, 0: none or not known */
	/* QUEUE -> WRED_PROFILE: the profile of its lowest lossless queue */
	int wred;			/* index in sonic_cfg.wreds, -1: none */
	uint8_t wred_queue;		/* that queue + 1, 0: none */
	char wred_row[SONIC_NAME + 16]; /* the QUEUE key, e.g. "Ethernet16|3" */
	int wred_line;			/* of its wred_profile field */
	/* DEVICE_NEIGHBOR: what the port is cabled to ("" when the table does not say) */
	char nbr[SONIC_NAME], nbr_port[SONIC_NAME];
	int nbr_line;
};

struct sonic_cfg {
	char file[256];
	/* DEVICE_METADATA|localhost */
	char hostname[SONIC_NAME]; /* "" when not given */
	int hostname_line;
	int buffer_model_dynamic; /* buffer_model: dynamic */
	int buffer_model_line;
	/* PORT: the speed and MTU of most ports; how many ports */
	uint64_t port_speed_bps;
	uint32_t port_mtu;
	uint32_t n_ports;
	/* each port, in the order of the numbers in their names (Ethernet4 before Ethernet12) */
	struct sonic_port ports[SONIC_PORTS_MAX];
	struct sonic_profile_use profiles[SONIC_PROFILES_MAX];
	uint32_t n_profiles;
	struct sonic_map_use maps[SONIC_MAPS_MAX];
	uint32_t n_maps;
	struct sonic_wred_use wreds[SONIC_WREDS_MAX];
	uint32_t n_wreds;
	/* CABLE_LENGTH: the longest cable, millimetres (0 if none) */
	uint64_t cable_mm;
	/* BUFFER_POOL ingress_lossless_pool (or the pool the lossless profile names) */
	int has_pool;
	int has_pool_size;    /* a dynamic pool may leave its size to SONiC */
	uint64_t pool_size;   /* bytes */
	uint64_t pool_xoff;   /* shared headroom pool size, 0 = none */
	uint64_t buffer_size; /* pool_size + pool_xoff: the switch's buffer */
	int pool_dynamic;     /* mode: dynamic */
	struct sonic_at pool_size_at, pool_xoff_at;
	/* the profile BUFFER_PG binds to the lossless PGs */
	int has_profile;
	char profile[96];
	char pg_where[SONIC_WHERE];	      /* e.g. "BUFFER_PG|Ethernet0|3-4" */
	int pg_null;			      /* profile "NULL": SONiC computes the headroom */
	uint64_t xon, xon_offset, xoff, size; /* bytes; xoff is the headroom */
	int has_xon, has_xon_offset, has_xoff;
	int has_dynamic_th;
	int dynamic_th;
	int has_static_th;
	uint64_t static_th;
	struct sonic_at xon_at, xon_offset_at, xoff_at, dynamic_th_at, static_th_at;
	/* PORT_QOS_MAP pfc_enable (priorities) of most ports that give it */
	uint8_t pfc_enable;
	int has_pfc_enable;
	char pfc_where[SONIC_WHERE]; /* e.g. "PORT_QOS_MAP|Ethernet0|pfc_enable" */
	int pfc_line;
	/* DSCP_TO_TC_MAP used by PORT_QOS_MAP (or the only one) */
	int has_dscp_map;
	char dscp_map[64]; /* its name, e.g. "AZURE" */
	uint8_t dscp_to_tc[64];
	uint64_t dscp_given;	     /* bit d: the map names DSCP d */
	struct sonic_at dscp_map_at; /* "DSCP_TO_TC_MAP|AZURE" */
	int dscp_line[64];	     /* line of DSCP d in that map (0: not named, or unknown) */
	/* TC_TO_PRIORITY_GROUP_MAP, TC_TO_QUEUE_MAP (identity when absent) */
	uint8_t tc_to_pg[8], tc_to_queue[8];
	/* WRED_PROFILE bound to a lossless queue through QUEUE|port|q wred_profile */
	int has_wred;
	char wred[64];
	uint64_t kmin, kmax; /* green_min/max_threshold, bytes */
	double pmax;	     /* green_drop_probability / 100 */
	int ecn_marking;     /* ecn is ecn_all or ecn_green... */
	struct sonic_at kmin_at, kmax_at, pmax_at, ecn_at;
	/* the schedulers of most ports that name one (QUEUE -> SCHEDULER) */
	int has_sched;
	int sched_dwrr;
	uint32_t sched_weights[8]; /* 1 where a queue has none, or is STRICT */
	int sched_port;		   /* the port (index in ports) whose schedulers these are */
	struct sonic_at sched_at;  /* "QUEUE|Ethernet0|3|scheduler" */
	/* PFC_WD on a port */
	int has_watchdog;
	uint32_t wd_detection_ms, wd_restoration_ms;
	char wd_action[16]; /* drop, forward, alert */
	struct sonic_at wd_detection_at, wd_restoration_at, wd_action_at;
};

/* The port named @name of @c (exactly), or -1. */
int sonic_port_index(const struct sonic_cfg *c, const char *name);
/*
 * Compare port names as SONiC numbers them: runs of digits by value, so
 * "Ethernet4" < "Ethernet12"; then byte by byte. The order of
 * sonic_cfg.ports.
 */
int sonic_port_cmp(const char *a, const char *b);

#endif
