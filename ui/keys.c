/* The global keys.  Every key that acts on the run stands for a console
 * command: the key's text is executed through dbg_exec() and echoed in the
 * console, so what a key does is exactly what typing its command does (and
 * the help overlay can show that command next to the key).  Keys that only
 * change the view (panes, scrolling) stay inside the TUI. */
#include <stdio.h>
#include <string.h>

#include "debug/breakpoints.h"
#include "ui.h"

#define CTRL(c) ((c)&0x1f)

static const struct key_binding bindings[] = {
    {{KEY_F(5), 'c', 0},
     "F5 c",
     "continue until a breakpoint or the end",
     KA_COMMAND,
     "continue",
     0},
    {{KEY_F(10), 'n', 0}, "F10 n", "step one hardware layer", KA_COMMAND, "step layer", 0},
    {{KEY_F(11), 's', 0}, "F11 s", "step one register write", KA_COMMAND, "step write", 0},
    {{'f', 0}, "f", "finish the layer in progress", KA_COMMAND, "finish", 0},
    {{'b', 0}, "b", "breakpoint on the selected layer (again: delete it)", KA_BREAK, NULL, 0},
    {{'A', 0}, "A", "run until the selected layer completes", KA_ADVANCE, NULL, 0},
    {{'B', 0}, "B", "step back one layer boundary", KA_COMMAND, "back layer", 0},
    {{'S', 0}, "S", "step back one register write", KA_COMMAND, "back write", 0},
    {{'R', 0}, "R", "run again from power-on reset", KA_COMMAND, "run", 0},
    {{'\t', 0}, "Tab", "next pane", KA_NEXT_PANE, NULL, 0},
    {{KEY_BTAB, 0}, "S-Tab", "previous pane", KA_PREV_PANE, NULL, 0},
    {{'1', 0}, "1", "layers and tasks", KA_PANE, NULL, PANE_LAYERS},
    {{'2', 0}, "2", "registers of the selected unit", KA_PANE, NULL, PANE_REGS},
    {{'3', 0}, "3", "CBUF bank map", KA_PANE, NULL, PANE_CBUF},
    {{'4', 0}, "4", "LUT configuration, counts and plots", KA_PANE, NULL, PANE_LUT},
    {{'5', 0}, "5", "performance counters", KA_PANE, NULL, PANE_PERF},
    {{'6', 0}, "6", "memory and tensors", KA_PANE, NULL, PANE_MEM},
    {{'7', 0}, "7", "timeline of units over cycles", KA_PANE, NULL, PANE_TIMELINE},
    {{'8', 0}, "8", "the layer's output against its reference, histogram", KA_PANE, NULL,
     PANE_TENSOR},
    {{'/', 0}, "/", "search registers by name", KA_SEARCH, NULL, 0},
    {{':', 0}, ":", "focus the console (Esc leaves it)", KA_CONSOLE, NULL, 0},
    {{'?', KEY_F(1), 0}, "? F1", "this help", KA_HELP, NULL, 0},
    {{CTRL('l'), 0}, "C-l", "redraw the screen", KA_REDRAW, NULL, 0},
    {{KEY_F(2), 'M', 0}, "F2 M", "maximise the console (again: restore)", KA_CONSOLE_MAX, NULL, 0},
    {{KEY_F(4), '}', 0}, "F4 }", "console taller (the panes above give the rows)", KA_CONSOLE_SIZE,
     NULL, 2},
    {{KEY_F(3), '{', 0}, "F3 {", "console shorter", KA_CONSOLE_SIZE, NULL, -2},
    {{'q', KEY_F(12), 0}, "q", "quit (asks while a run is in progress)", KA_QUIT, NULL, 0},
};

#define N_BINDINGS (sizeof bindings / sizeof bindings[0])

const struct key_binding *keys_find(int key)
{
    for (size_t i = 0; i < N_BINDINGS; i++)
        for (const int *k = bindings[i].keys; *k; k++)
            if (*k == key)
                return &bindings[i];
    return NULL;
}

size_t keys_count(void)
{
    return N_BINDINGS;
}

const struct key_binding *keys_get(size_t i)
{
    return i < N_BINDINGS ? &bindings[i] : NULL;
}

/* A file is open and a layer selected, for the keys that act on it; else
 * false with what is missing. */
static bool layer_selected(struct ui *ui, char *buf, size_t len)
{
    if (!ui->g->session) {
        snprintf(buf, len, "no file is open");
        return false;
    }
    if (ui->layer < 0) {
        snprintf(buf, len, "select a layer first (pane 1)");
        return false;
    }
    return true;
}

static bool break_command(struct ui *ui, char *buf, size_t len)
{
    if (!layer_selected(ui, buf, len))
        return false;
    int number = 0;
    char mark = layers_break_mark(ui, ui->layer, &number);
    if (mark == 'B' || mark == 'b')
        snprintf(buf, len, "delete %d", number);
    else
        snprintf(buf, len, "break layer %ld", ui->layer);
    return true;
}

bool keys_command(struct ui *ui, const struct key_binding *b, char *buf, size_t len)
{
    switch (b->action) {
    case KA_COMMAND:
        snprintf(buf, len, "%s", b->command);
        return true;
    case KA_BREAK:
        return break_command(ui, buf, len);
    case KA_ADVANCE: /* an IDE's "run to cursor", as gdb frontends make it */
        if (!layer_selected(ui, buf, len))
            return false;
        snprintf(buf, len, "advance layer %ld done", ui->layer);
        return true;
    case KA_QUIT:
        snprintf(buf, len, "quit");
        return true;
    default:
        snprintf(buf, len, "not a command key");
        return false;
    }
}

/* The escape sequences readline binds by default for the keys curses decodes. */
size_t keys_to_readline(int key, char *buf, size_t len)
{
    static const struct {
        int key;
        const char *seq;
    } seqs[] = {
        {KEY_UP, "\033[A"},   {KEY_DOWN, "\033[B"}, {KEY_RIGHT, "\033[C"}, {KEY_LEFT, "\033[D"},
        {KEY_HOME, "\033[H"}, {KEY_END, "\033[F"},  {KEY_DC, "\033[3~"},   {KEY_BACKSPACE, "\177"},
        /* Enter is C-m, accept-line everywhere: C-j would only end a Ctrl-R
         * search (it is one of readline's isearch terminators) */
        {KEY_ENTER, "\r"},    {'\r', "\r"},      {'\n', "\r"},
    };
    for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++) {
        if (seqs[i].key != key)
            continue;
        size_t n = strlen(seqs[i].seq);
        if (n >= len)
            return 0;
        memcpy(buf, seqs[i].seq, n);
        return n;
    }
    if (key < 0 || key > 0xff || len < 1)
        return 0; /* another curses key: nothing readline knows */
    buf[0] = (char)key;
    return 1;
}
