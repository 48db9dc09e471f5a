/* keys.h: key codes independent of the terminal library, and the table that
 * maps keys to actions (nnn's bindings[]).  term-curses.c translates ncurses
 * codes into these; tests feed them directly.
 *
 *     vw_action a = vw_keys_action('+');         // VW_ACT_ZOOM_IN
 */
#ifndef VW_KEYS_H
#define VW_KEYS_H

#include <stddef.h>

#include "../views/view.h"

/* Keys that are not characters (above the Unicode range). */
enum vw_key {
	VW_KEY_UP = 0x110000,
	VW_KEY_DOWN,
	VW_KEY_LEFT,
	VW_KEY_RIGHT,
	VW_KEY_SLEFT,   /* shift-left */
	VW_KEY_SRIGHT,
	VW_KEY_PPAGE,
	VW_KEY_NPAGE,
	VW_KEY_HOME,
	VW_KEY_END,
	VW_KEY_ENTER,
	VW_KEY_ESC,
	VW_KEY_BACKSPACE,
	VW_KEY_TAB,
	VW_KEY_BTAB,    /* shift-tab */
	VW_KEY_F1,
	VW_KEY_RESIZE,
	VW_KEY_MOUSE,
};

#define VW_CTRL(c) ((c) & 0x1f)

typedef struct vw_binding {
	int key;
	vw_action act;
} vw_binding;

extern const vw_binding vw_keys_table[];
extern const size_t vw_keys_count;

/* The action bound to key, VW_ACT_NONE if none. */
vw_action vw_keys_action(int key);
/* A key's name for the help screen: "Left", "PgUp", "Ctrl-D", "q". */
const char *vw_keys_name(int key, char *buf, size_t len);
/* A key given by name (as vw_keys_name writes it, or one character); -1 if unknown. */
int vw_keys_parse(const char *name);

#endif
