/* What the parts of the TUI share: the screen state (struct ui), the panes,
 * and the small interfaces of theme.c, keys.c, layout.c, statusbar.c,
 * help.c and the console.  Only ui/ includes this. */
#ifndef DLADBG_UI_UI_H
#define DLADBG_UI_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/cmd.h"
#include "pane.h"

/* Panes in the order of the keys 1-8; the console has no number (":" focuses it). */
enum pane_id {
    PANE_LAYERS,
    PANE_REGS,
    PANE_CBUF,
    PANE_LUT,
    PANE_PERF,
    PANE_MEM,
    PANE_TIMELINE,
    PANE_TENSOR,
    PANE_CONSOLE,
    PANE_COUNT,
};

/* The panes that take turns in the right-hand slot (regs .. mem, tensor). */
static inline bool is_right_pane(enum pane_id id)
{
    return (id >= PANE_REGS && id <= PANE_MEM) || id == PANE_TENSOR;
}

#define UI_MIN_COLS 80
#define UI_MIN_ROWS 24

/* A one-line editor for searches, in-place register edits and questions. */
enum prompt_kind { PROMPT_NONE, PROMPT_TEXT, PROMPT_YESNO };
typedef void (*prompt_done_fn)(struct ui *ui, void *ctx, const char *text);

struct prompt {
    enum prompt_kind kind;
    char label[128];
    char text[256];
    size_t len;
    /* The initial text is selected: the first character typed replaces it,
     * as in any GUI field; Backspace or Ctrl-U edits it instead. */
    bool selected;
    prompt_done_fn done; /* called with the text on Enter (YESNO: "y" or "n") */
    void *ctx;
    /* In place: drawn over a pane's inner row at col, width wide (NULL: bottom line). */
    struct pane *anchor;
    int row, col, width;
};

struct ui {
    struct dbg *g;
    struct pane *pane[PANE_COUNT];
    enum pane_id focus;
    enum pane_id detail;      /* shown in the right-hand slot (regs .. mem) */
    enum pane_id back_focus;  /* where Esc from the console returns */
    enum pane_id placed_with; /* wide screens: the pane sharing the right side */
    int rows, cols;
    bool too_small;
    int console_extra; /* rows the user added to the console's height (negative: took) */
    bool console_max;  /* the console has the whole screen between the bars */
    bool wide_layers;  /* the layers pane has room for the reference column */
    bool quit;
    bool dirty; /* redraw everything at the next chance */

    /* Selection the panes share. */
    long layer;       /* selected hardware layer, -1: none */
    int unit;         /* enum dla_unit the registers pane shows */
    int group;        /* register group (0/1) the registers pane shows */
    bool unit_pinned; /* the user chose the unit: do not follow the layer */

    /* A command is executing: the UI is redrawn from model events. */
    bool running;
    char running_cmd[128];
    long long last_draw_ms;
    uint64_t events;
    long event_layer;       /* layer of the latest layer event of the command running */
    unsigned model_gen;     /* changes whenever the session's model is another one */
    unsigned listened_open; /* g->opens when the progress listener was registered */
    int listener;           /* its handle, -1: none */

    /* Status line. */
    char stop_reason[256]; /* first stop line of the last command */
    bool stop_seen;        /* stop_reason set by the command executing now */
    char message[256];     /* transient note (errors of keys, hints) */
    bool message_error;
    uint64_t known_layers; /* layers of a complete run of this file, 0: unknown */

    bool help_open;
    int help_top;
    struct prompt prompt;
    long long ctrl_c_ms; /* time of an idle Ctrl-C (a second one soon after quits) */

    /* Keys typed into the console while a command ran, read before the
     * terminal's once it returns (a terminal gdb keeps typed-ahead lines) */
    int typeahead[512];
    size_t typeahead_len;
};

/* ---------------------------------------------------------------- tui.c */

/* Execute a command line as if typed in the console (echoed there). */
void ui_exec(struct ui *ui, const char *line);
/* The command a key or a pane stands for (F5's "continue", Enter's
 * "tensor NAME"), run as ui_exec runs it; false, with a hint in the status
 * line, while a breakpoint's command list is being typed. */
bool ui_exec_key(struct ui *ui, const char *line);
/* Transient note in the status line. */
void ui_message(struct ui *ui, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The model of the open session, NULL without one. */
struct dla *ui_dla(struct ui *ui);
/* Select a hardware layer (-1: none); the registers pane follows its unit
 * unless the user pinned one. */
void ui_select_layer(struct ui *ui, long layer);
/* The layer the run is at (session_layer_at: running, else enabled, else being
 * programmed, else the last to finish); -1 before any. */
long ui_current_layer(struct ui *ui);
void ui_focus(struct ui *ui, enum pane_id id);
/* Ask for a line of text (or y/n); done is called on Enter, not on Esc. */
void ui_prompt(struct ui *ui, enum prompt_kind kind, const char *label, const char *initial,
               prompt_done_fn done, void *ctx);
/* The same, edited in place over a pane's inner row. */
void ui_prompt_at(struct ui *ui, struct pane *anchor, int row, int col, int width,
                  const char *initial, prompt_done_fn done, void *ctx);
long long ui_now_ms(void);

/* ---------------------------------------------------------------- panes */

struct pane *pane_layers_create(void);
struct pane *pane_regs_create(void);
struct pane *pane_cbuf_create(void);
struct pane *pane_lut_create(void);
struct pane *pane_perf_create(void);
struct pane *pane_mem_create(void);
struct pane *pane_timeline_create(void);
struct pane *pane_tensor_create(void);
struct pane *pane_console_create(void);

/* Registers pane: find the next register whose name contains text (any unit,
 * starting after the cursor); false when none does. */
bool regs_search(struct ui *ui, const char *text);
/* Is the layer a breakpoint target?  'B' enabled, 'b' disabled, 'u' by unit, 0 none. */
char layers_break_mark(struct ui *ui, long layer, int *bp_number);

/* Console: output, readline feeding and the line it accepted. */
void console_init(struct ui *ui);
void console_shutdown(struct ui *ui);
void console_out(struct ui *ui, enum dbg_out_kind kind, const char *text);
void console_echo(struct ui *ui, const char *line);
/* The input line's prompt as the command layer has it now (">" in "commands"). */
void console_follow_prompt(struct ui *ui);
/* Put the terminal cursor on the console's input point (when focused). */
void console_place_cursor(struct ui *ui);
/* Ctrl-C while typing: drop the line being edited. */
void console_clear_line(struct ui *ui);
/* Nothing typed on the console's command line. */
bool console_line_empty(void);
/* A line readline accepted (Enter) and not yet executed. */
bool console_take_line(struct ui *ui, char *buf, size_t len);

/* With a reference loaded ("compare DIR"), the layers pane shows how each
 * layer agrees with it (pane_layers.c). */
bool layers_show_reference(struct ui *ui);

/* ---------------------------------------------------------------- layout.c */

/* Place the panes for the current screen size (sets too_small). */
void layout_place(struct ui *ui);
/* The placed, visible pane at screen (y, x), or PANE_COUNT. */
enum pane_id layout_pane_at(const struct ui *ui, int y, int x);
bool layout_visible(const struct ui *ui, enum pane_id id);

/* ---------------------------------------------------------------- statusbar.c */

void statusbar_draw(struct ui *ui); /* top line: file, config, layer k/N, cycle, stop */
void keybar_draw(struct ui *ui);    /* bottom line: main keys, or the prompt */
void too_small_draw(struct ui *ui); /* the message below UI_MIN_COLS x UI_MIN_ROWS */

/* ---------------------------------------------------------------- help.c */

void help_draw(struct ui *ui);
/* Keys while the overlay is open; false closes it. */
bool help_key(struct ui *ui, int key);

/* ---------------------------------------------------------------- keys.c */

enum key_action {
    KA_COMMAND,   /* execute the binding's command text */
    KA_BREAK,     /* toggle a breakpoint on the selected layer */
    KA_ADVANCE,   /* run until the selected layer completes */
    KA_QUIT,      /* quit, asking first if a run is in progress */
    KA_HELP,      /* the ? overlay */
    KA_CONSOLE,   /* focus the console */
    KA_SEARCH,    /* search registers */
    KA_NEXT_PANE, /* Tab */
    KA_PREV_PANE, /* Shift-Tab */
    KA_PANE,      /* 1-7: focus pane arg */
    KA_REDRAW,    /* Ctrl-L */
    KA_CONSOLE_MAX,  /* the console takes the whole screen, or gives it back */
    KA_CONSOLE_SIZE, /* the console arg rows taller (negative: shorter) */
};

struct key_binding {
    int keys[3];       /* key codes, 0-terminated */
    const char *label; /* "F5 c" as shown in help */
    const char *help;  /* what it does */
    enum key_action action;
    const char *command; /* KA_COMMAND: the console command */
    int arg;             /* KA_PANE: enum pane_id */
};

const struct key_binding *keys_find(int key);
size_t keys_count(void);
const struct key_binding *keys_get(size_t i);
/* The console command a binding stands for, given the selection; false
 * (with a reason in buf) when it does not apply now. */
bool keys_command(struct ui *ui, const struct key_binding *b, char *buf, size_t len);
/* Console text for a key (readline wants bytes, not curses key codes);
 * returns the number of bytes, 0 when the key means nothing to readline. */
size_t keys_to_readline(int key, char *buf, size_t len);

/* ---------------------------------------------------------------- theme.c */

enum theme_role {
    TH_NORMAL,
    TH_DIM,
    TH_BORDER,
    TH_BORDER_FOCUS,
    TH_TITLE,
    TH_TITLE_FOCUS,
    TH_CURSOR,      /* selected row of the focused pane */
    TH_CURSOR_IDLE, /* selected row of another pane */
    TH_CHANGED,     /* register value changed since the last stop */
    TH_HEADER,      /* column headings */
    TH_STATUS,      /* status line */
    TH_STATUS_STOP, /* stop reason in the status line */
    TH_STATUS_RUN,  /* "running" in the status line */
    TH_KEY,         /* key names in the key bar */
    TH_KEY_LABEL,   /* their labels */
    TH_STATE_PROG,  /* layer being programmed */
    TH_STATE_PEND,  /* enabled, waiting for its pipeline */
    TH_STATE_RUN,   /* running */
    TH_STATE_DONE,  /* done */
    TH_BREAK,       /* breakpoint marks */
    TH_CURRENT,     /* the layer in progress */
    TH_OUT_TEXT,    /* console: command output */
    TH_OUT_STOP,    /* stop reports */
    TH_OUT_NOTE,    /* notes */
    TH_OUT_WARN,    /* warnings */
    TH_OUT_ERROR,   /* errors */
    TH_OUT_ECHO,    /* the command line itself */
    TH_BAR,         /* utilisation bars */
    TH_BAR_STALL,   /* stall part of a bar */
    TH_PLOT,        /* LUT table plot */
    TH_HIST,        /* LUT input histogram */
    TH_OVERLAY,     /* help overlay and questions */
    TH_ROLE_COUNT,
};

enum glyph {
    GL_BLOCK, /* a full cell of a bar */
    GL_SHADE, /* the empty part of a bar */
    GL_MARK,  /* breakpoint mark */
    GL_ARROW, /* current layer */
    GL_DOT,   /* programming phase on the timeline */
    GL_VLINE, /* "now" on the timeline */
    GL_COUNT,
};

/* colour: false for --no-color; NO_COLOR and colourless terminals are detected here. */
void theme_init(bool colour);
bool theme_has_colour(void);
attr_t theme(enum theme_role r);
/* Attribute marking what a hardware layer owns (CBUF banks, timeline bars). */
attr_t theme_layer(long layer);
const char *theme_glyph(enum glyph g);
/* A vertical level 0..8 as one cell (eighth blocks, or ASCII). */
const char *theme_level(unsigned level);

#endif
