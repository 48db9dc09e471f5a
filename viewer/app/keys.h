/* keys.h: key codes independent of the terminal library, and the table that
 * maps keys to actions (nnn's bindings[]).  The key codes themselves are in
 * views/view.h (term-curses.c translates ncurses codes into them; tests feed
 * them directly).
 *
 *     vw_action a = vw_keys_action('+');         // VW_ACT_ZOOM_IN
 */
#ifndef VW_KEYS_H
#define VW_KEYS_H

#include <stddef.h>

#include "../views/view.h"

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
