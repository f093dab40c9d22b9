/* The TUI's parts that need no terminal: every key that acts on the run is a
 * console command the command layer knows; the breakpoint key toggles through
 * "break layer N" / "delete N"; keys reach readline as the sequences it binds;
 * text is clipped by cells, not bytes; the layout places the panes inside
 * the screen without overlap at every size, and colours follow --no-color
 * and NO_COLOR (on a curses screen writing to /dev/null).  The tmux tests in tests/tui drive the
 * whole thing. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/textfile.h"
#include "ui.h"

/* Resolve a command line's words as dispatch does: a command, then subcommands. */
static const struct cmd_entry *resolve(const char *line)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", line);
    const struct cmd_entry *table = NULL, *e = NULL;
    for (char *w = strtok(buf, " "); w; w = strtok(NULL, " ")) {
        bool ambiguous;
        const struct cmd_entry *sub = cmd_lookup(table, w, &ambiguous);
        if (!sub)
            return e && !table ? NULL : e; /* an argument, not a subcommand */
        e = sub;
        table = e->subs;
        if (!table)
            break;
    }
    return e;
}

static void test_command_keys_are_commands(void **state)
{
    (void)state;
    size_t commands = 0;
    for (size_t i = 0; i < keys_count(); i++) {
        const struct key_binding *b = keys_get(i);
        assert_non_null(b->label);
        assert_non_null(b->help);
        if (b->action != KA_COMMAND)
            continue;
        commands++;
        const struct cmd_entry *e = resolve(b->command);
        assert_non_null(e);
        assert_non_null(e->exec);
    }
    assert_true(commands >= 5);
    /* the keys the brief names, and what they execute */
    static const struct {
        int key;
        const char *command;
    } expected[] = {
        {'c', "continue"},         {KEY_F(5), "continue"}, {'n', "step layer"},
        {KEY_F(10), "step layer"}, {'s', "step write"},    {KEY_F(11), "step write"},
        {'B', "back layer"},
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        const struct key_binding *b = keys_find(expected[i].key);
        assert_non_null(b);
        assert_int_equal(b->action, KA_COMMAND);
        assert_string_equal(b->command, expected[i].command);
        assert_string_equal(resolve(b->command)->name, strrchr(expected[i].command, ' ')
                                                           ? strrchr(expected[i].command, ' ') + 1
                                                           : expected[i].command);
    }
    assert_int_equal(keys_find('b')->action, KA_BREAK);
    assert_int_equal(keys_find('q')->action, KA_QUIT);
    assert_int_equal(keys_find('?')->action, KA_HELP);
    assert_int_equal(keys_find(':')->action, KA_CONSOLE);
    assert_int_equal(keys_find('/')->action, KA_SEARCH);
    assert_int_equal(keys_find('\t')->action, KA_NEXT_PANE);
    for (int k = '1'; k <= '7'; k++) {
        assert_int_equal(keys_find(k)->action, KA_PANE);
        assert_int_equal(keys_find(k)->arg, k - '1');
    }
    assert_null(keys_find('Z'));
}

static void quiet_line(void *ctx, enum dbg_out_kind kind, const char *text)
{
    (void)ctx;
    (void)kind;
    (void)text;
}

static void test_break_key_toggles(void **state)
{
    (void)state;
    static const struct dbg_sink quiet = {quiet_line, NULL};
    struct dbg_options opt = {.no_builtin_plugins = true};
    struct dbg *g = dbg_create(&opt, &quiet);
    assert_non_null(g);
    struct ui ui;
    memset(&ui, 0, sizeof ui);
    ui.g = g;
    ui.layer = 1;
    char cmd[128];
    const struct key_binding *b = keys_find('b');
    assert_false(keys_command(&ui, b, cmd, sizeof cmd)); /* no file */
    char err[256];
    assert_true(dbg_open(g, "sample:lenet", err, sizeof err));
    assert_int_equal(dbg_exec(g, "step layer", &quiet), CMD_OK);
    ui.layer = -1;
    assert_false(keys_command(&ui, b, cmd, sizeof cmd)); /* nothing selected */
    ui.layer = 1;
    assert_true(keys_command(&ui, b, cmd, sizeof cmd));
    assert_string_equal(cmd, "break layer 1");
    assert_int_equal(dbg_exec(g, cmd, &quiet), CMD_OK);
    int number = 0;
    assert_int_equal(layers_break_mark(&ui, 1, &number), 'B');
    assert_true(keys_command(&ui, b, cmd, sizeof cmd));
    char expect[32];
    snprintf(expect, sizeof expect, "delete %d", number);
    assert_string_equal(cmd, expect);
    assert_int_equal(dbg_exec(g, cmd, &quiet), CMD_OK);
    assert_int_equal(layers_break_mark(&ui, 1, NULL), 0);
    /* a unit breakpoint marks every layer of that unit */
    assert_int_equal(dbg_exec(g, "break unit conv", &quiet), CMD_OK);
    assert_int_equal(layers_break_mark(&ui, 0, NULL), 'u');
    assert_true(keys_command(&ui, b, cmd, sizeof cmd));
    assert_string_equal(cmd, "break layer 1"); /* a layer breakpoint can still be added */
    dbg_destroy(g);
}

static void test_keys_to_readline(void **state)
{
    (void)state;
    char buf[8];
    assert_int_equal(keys_to_readline(KEY_UP, buf, sizeof buf), 3);
    assert_memory_equal(buf, "\033[A", 3);
    assert_int_equal(keys_to_readline(KEY_LEFT, buf, sizeof buf), 3);
    assert_memory_equal(buf, "\033[D", 3);
    assert_int_equal(keys_to_readline(KEY_DC, buf, sizeof buf), 4);
    assert_memory_equal(buf, "\033[3~", 4);
    assert_int_equal(keys_to_readline(KEY_BACKSPACE, buf, sizeof buf), 1);
    assert_int_equal(buf[0], 0x7f);
    /* Enter is C-m (accept-line, also ending a Ctrl-R search); C-j only ends the search */
    assert_int_equal(keys_to_readline(KEY_ENTER, buf, sizeof buf), 1);
    assert_int_equal(buf[0], '\r');
    assert_int_equal(keys_to_readline('\n', buf, sizeof buf), 1);
    assert_int_equal(buf[0], '\r');
    assert_int_equal(keys_to_readline('x', buf, sizeof buf), 1);
    assert_int_equal(buf[0], 'x');
    assert_int_equal(keys_to_readline('\t', buf, sizeof buf), 1);
    assert_int_equal(keys_to_readline(0xc3, buf, sizeof buf), 1); /* UTF-8 bytes pass */
    assert_int_equal(keys_to_readline(KEY_F(5), buf, sizeof buf), 0);
    assert_int_equal(keys_to_readline(KEY_UP, buf, 2), 0); /* no room: nothing */
}

static void test_text_clip(void **state)
{
    (void)state;
    int cols;
    assert_int_equal(text_clip("abcdef", 4, &cols), 4);
    assert_int_equal(cols, 4);
    assert_int_equal(text_clip("ab", 10, &cols), 2);
    assert_int_equal(cols, 2);
    /* "a█b": the block is 3 bytes, one cell */
    assert_int_equal(text_clip("a\u2588b", 2, &cols), 4);
    assert_int_equal(cols, 2);
    assert_int_equal(text_clip("a\u2588b", 3, &cols), 5);
    assert_int_equal(cols, 3);
    assert_int_equal(text_clip("", 3, &cols), 0);
    assert_int_equal(cols, 0);
}

/* ---------------------------------------------------------------- layout */

static bool overlap(const struct pane *a, const struct pane *b)
{
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

/* Place the panes on a rows x cols screen; check they are inside it, between
 * the status line and the key bar, and do not overlap. */
static void place_and_check(struct ui *ui, int rows, int cols)
{
    resize_term(rows, cols);
    layout_place(ui);
    assert_int_equal(ui->rows, rows);
    assert_int_equal(ui->cols, cols);
    if (ui->too_small)
        return;
    for (int i = 0; i < PANE_COUNT; i++) {
        const struct pane *p = ui->pane[i];
        if (!p->win)
            continue;
        assert_true(p->y >= 1 && p->y + p->h <= rows - 1);
        assert_true(p->x >= 0 && p->x + p->w <= cols);
        assert_true(p->h >= 3 && p->w >= 8);
        for (int j = i + 1; j < PANE_COUNT; j++)
            if (ui->pane[j]->win)
                assert_false(overlap(p, ui->pane[j]));
    }
}

static int visible_panes(const struct ui *ui)
{
    int n = 0;
    for (int i = 0; i < PANE_COUNT; i++)
        n += ui->pane[i]->win != NULL;
    return n;
}

static void test_layout_and_colours(void **state)
{
    (void)state;
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    assert_non_null(out);
    assert_non_null(in);
    SCREEN *scr = newterm("xterm", out, in);
    assert_non_null(scr);
    struct ui ui;
    memset(&ui, 0, sizeof ui);
    struct pane *(*const create[PANE_COUNT])(void) = {
        pane_layers_create, pane_regs_create, pane_cbuf_create,     pane_lut_create,
        pane_perf_create,   pane_mem_create,  pane_timeline_create, pane_tensor_create,
        pane_console_create,
    };
    for (int i = 0; i < PANE_COUNT; i++)
        assert_non_null(ui.pane[i] = create[i]());
    ui.detail = PANE_REGS;
    ui.placed_with = PANE_PERF;

    place_and_check(&ui, 40, 120);
    assert_false(ui.too_small);
    assert_int_equal(visible_panes(&ui), 4);
    assert_true(layout_visible(&ui, PANE_LAYERS) && layout_visible(&ui, PANE_REGS) &&
                layout_visible(&ui, PANE_TIMELINE) && layout_visible(&ui, PANE_CONSOLE));
    /* the console spans the width, the key bar is below it */
    assert_int_equal(ui.pane[PANE_CONSOLE]->w, 120);
    assert_int_equal(ui.pane[PANE_CONSOLE]->y + ui.pane[PANE_CONSOLE]->h, 39);
    assert_int_equal(layout_pane_at(&ui, 2, 2), PANE_LAYERS);
    assert_int_equal(layout_pane_at(&ui, 0, 2), PANE_COUNT); /* status line */

    /* the right-hand slot shows the chosen pane */
    ui.detail = PANE_LUT;
    place_and_check(&ui, 40, 120);
    assert_true(layout_visible(&ui, PANE_LUT));
    assert_false(layout_visible(&ui, PANE_REGS));

    /* exactly the minimum, and odd sizes in between */
    place_and_check(&ui, UI_MIN_ROWS, UI_MIN_COLS);
    assert_false(ui.too_small);
    assert_int_equal(visible_panes(&ui), 4);
    for (int rows = UI_MIN_ROWS; rows <= 70; rows += 7)
        for (int cols = UI_MIN_COLS; cols <= 260; cols += 23)
            place_and_check(&ui, rows, cols);

    /* wide: registers and the other right-hand pane side by side */
    place_and_check(&ui, 50, 200);
    assert_int_equal(visible_panes(&ui), 5);
    assert_true(layout_visible(&ui, PANE_REGS) && layout_visible(&ui, PANE_LUT));

    /* below the minimum: no pane at all (the message is drawn instead) */
    place_and_check(&ui, UI_MIN_ROWS - 1, 120);
    assert_true(ui.too_small);
    assert_int_equal(visible_panes(&ui), 0);
    place_and_check(&ui, 40, UI_MIN_COLS - 1);
    assert_true(ui.too_small);
    place_and_check(&ui, 40, 120);
    assert_false(ui.too_small);

    /* colours: on for a colour terminal, off for --no-color and for NO_COLOR;
     * without them every role still stands out by an attribute */
    unsetenv("NO_COLOR");
    theme_init(true);
    assert_true(theme_has_colour());
    theme_init(false);
    assert_false(theme_has_colour());
    setenv("NO_COLOR", "1", 1);
    theme_init(true);
    assert_false(theme_has_colour());
    setenv("NO_COLOR", "", 1); /* empty: not set, per no-color.org */
    theme_init(true);
    assert_true(theme_has_colour());
    unsetenv("NO_COLOR");
    theme_init(false);
    const enum theme_role marked[] = {TH_CHANGED,   TH_CURSOR, TH_TITLE_FOCUS, TH_STATUS,
                                      TH_OUT_ERROR, TH_BREAK,  TH_STATE_RUN};
    for (size_t i = 0; i < sizeof marked / sizeof marked[0]; i++)
        assert_true(theme(marked[i]) & (A_BOLD | A_REVERSE | A_UNDERLINE));
    assert_int_not_equal(theme_layer(1), theme_layer(2)); /* neighbours differ */

    for (int i = 0; i < PANE_COUNT; i++) {
        if (ui.pane[i]->win)
            delwin(ui.pane[i]->win);
        if (ui.pane[i]->ops->destroy)
            ui.pane[i]->ops->destroy(ui.pane[i]);
        free(ui.pane[i]);
    }
    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
}

/* ---------------------------------------------------------------- key docs */

static char *read_doc(const char *path)
{
    uint8_t *buf;
    size_t len;
    char err[256];
    if (!file_read_all(path, 1u << 20, &buf, &len, err, sizeof err))
        fail_msg("%s (run from the source tree, as tests/run.sh does)", err);
    char *text = realloc(buf, len + 1);
    assert_non_null(text);
    text[len] = 0;
    return text;
}

/* word occurs in text with no letter or digit right before or after it */
static bool has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        bool open_before = p == text || !isalnum((unsigned char)p[-1]);
        bool open_after = !isalnum((unsigned char)p[n]);
        if (open_before && open_after)
            return true;
    }
    return false;
}

/* The man page's KEYS section, its troff escapes ("\-") dropped. */
static char *man_keys_section(void)
{
    char *man = read_doc("share/dladbg.1");
    char *from = strstr(man, ".SH KEYS");
    assert_non_null(from);
    char *to = strstr(from + 1, ".SH ");
    if (to)
        *to = 0;
    char *out = malloc(strlen(from) + 1), *o = out;
    assert_non_null(out);
    for (const char *p = from; *p; p++)
        if (*p != '\\')
            *o++ = *p;
    *o = 0;
    free(man);
    return out;
}

/* Every key of the help overlay is in README.md's key table (as `KEY`) and
 * the man page's KEYS section: a key added to ui/keys.c without its docs
 * fails here.  The pane digits are documented as the range `1`-`8`. */
static void test_keys_documented(void **state)
{
    (void)state;
    char *readme = read_doc("README.md");
    char *man = man_keys_section();
    assert_non_null(strstr(readme, "`1`-`8`"));
    for (size_t i = 0; i < keys_count(); i++) {
        const struct key_binding *b = keys_get(i);
        if (b->action == KA_PANE)
            continue;
        char label[64];
        snprintf(label, sizeof label, "%s", b->label);
        for (char *tok = strtok(label, " "); tok; tok = strtok(NULL, " ")) {
            char key[32], quoted[40];
            if (!strncmp(tok, "C-", 2)) /* C-l is written Ctrl-L */
                snprintf(key, sizeof key, "Ctrl-%c", toupper((unsigned char)tok[2]));
            else
                snprintf(key, sizeof key, "%s", tok);
            snprintf(quoted, sizeof quoted, "`%s`", key);
            if (!strstr(readme, quoted))
                fail_msg("README.md's key table lacks %s (%s)", quoted, b->help);
            if (!has_word(man, key))
                fail_msg("share/dladbg.1's KEYS section lacks %s (%s)", key, b->help);
        }
    }
    free(readme);
    free(man);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_command_keys_are_commands), cmocka_unit_test(test_break_key_toggles),
        cmocka_unit_test(test_keys_to_readline),          cmocka_unit_test(test_text_clip),
        cmocka_unit_test(test_layout_and_colours),        cmocka_unit_test(test_keys_documented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
