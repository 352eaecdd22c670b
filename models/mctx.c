/* The model context (see mctx.h): the names of the PFC events. */
#include "models/mctx.h"

const char *pfc_event_str(enum pfc_event ev)
{
	static const char *const names[] = {
	    [PFC_EV_XOFF] = "xoff",
	    [PFC_EV_REFRESH] = "refresh",
	    [PFC_EV_XON] = "xon",
	    [PFC_EV_RX_PAUSE] = "rx_pause",
	    [PFC_EV_RX_RESUME] = "rx_resume",
	    [PFC_EV_PAUSED] = "paused",
	    [PFC_EV_UNPAUSED] = "unpaused",
	    [PFC_EV_STORM] = "storm",
	    [PFC_EV_WD_TRIGGER] = "watchdog_trigger",
	    [PFC_EV_WD_RESTORE] = "watchdog_restore",
	};

	return names[ev];
}
