/* The "?" overlay: every key, read from the same tables that dispatch them
 * (keys.c for the global keys, each pane's keys_help for its own), so the
 * list cannot drift from what the keys do.  Keys that act on the run show
 * the console command they execute. */
#include <stdio.h>
#include <string.h>

#include "ui.h"

#define HELP_MAX_LINES 400 /* room for every entry wrapped on a narrow terminal */
#define KEY_INDENT     17  /* "  " and a 14-column key and a blank: where descriptions start */

struct help_text {
    char line[HELP_MAX_LINES][200];
    bool heading[HELP_MAX_LINES];
    int n;
    int width; /* the columns a line may take: longer ones wrap */
};

static void push(struct help_text *h, bool heading, int indent, const char *text, size_t bytes)
{
    if (h->n >= HELP_MAX_LINES)
        return;
    snprintf(h->line[h->n], sizeof h->line[0], "%*s%.*s", indent, "", (int)bytes, text);
    h->heading[h->n] = heading;
    h->n++;
}

/* The bytes of text's first line at width columns: all of it when it fits,
 * else up to its last blank that fits (a word wider than the line is cut
 * where the line ends).  UTF-8's continuation bytes take no column (the
 * marks ● and ▶). */
static size_t line_break(const char *text, int width)
{
    int cols = 0;
    size_t i = 0, blank = 0;
    for (; text[i]; i++) {
        if (((unsigned char)text[i] & 0xc0) != 0x80 && cols++ == width)
            break;
        if (text[i] == ' ')
            blank = i;
    }
    if (!text[i] || text[i] == ' ' || !blank)
        return i;
    return blank;
}

/* text from column `first` of its first line, continuation lines from
 * column `indent`, each within the overlay's width: no line is cut at the
 * border, at 80 columns either. */
static void push_wrapped(struct help_text *h, bool heading, const char *first, int indent,
                         const char *text)
{
    char line[200];
    int at = (int)strlen(first); /* the key column is ASCII */
    int room = h->width - at;
    size_t n = room >= 8 ? line_break(text, room) : strlen(text);
    snprintf(line, sizeof line, "%s%.*s", first, (int)n, text);
    push(h, heading, 0, line, strlen(line));
    for (text += n; *text;) {
        while (*text == ' ')
            text++;
        if (!*text || h->width - indent < 8)
            break;
        n = line_break(text, h->width - indent);
        push(h, heading, indent, text, n);
        text += n;
    }
}

static void add(struct help_text *h, bool heading, const char *fmt_key, const char *what)
{
    if (heading) {
        push_wrapped(h, true, "", 2, fmt_key);
        return;
    }
    char key[64];
    snprintf(key, sizeof key, "  %-14.40s ", fmt_key);
    push_wrapped(h, false, key, KEY_INDENT, what);
}

/* A pane's help names its marks as the screen draws them: "{mark}" and
 * "{arrow}" become theme_glyph's (● and ▶ on a UTF-8 terminal, * and >
 * otherwise), so the overlay never describes a glyph the screen lacks. */
static void expand_glyphs(const char *in, char *out, size_t len)
{
    static const struct {
        const char *token;
        enum glyph glyph;
    } glyphs[] = {{"{mark}", GL_MARK}, {"{arrow}", GL_ARROW}};
    size_t used = 0;
    while (*in && used + 1 < len) {
        size_t i = 0, n = sizeof glyphs / sizeof glyphs[0];
        while (i < n && strncmp(in, glyphs[i].token, strlen(glyphs[i].token)))
            i++;
        if (i == n) {
            out[used++] = *in++;
            continue;
        }
        int w = snprintf(out + used, len - used, "%s", theme_glyph(glyphs[i].glyph));
        used = w > 0 && (size_t)w < len - used ? used + (size_t)w : len - 1;
        in += strlen(glyphs[i].token);
    }
    out[used] = 0;
}

static void add_pane_keys(struct help_text *h, const struct pane *p, const char *heading)
{
    const char *k = p->ops->keys_help;
    if (!k || !*k)
        return;
    add(h, false, "", "");
    add(h, true, heading, NULL);
    while (*k) {
        const char *nl = strchr(k, '\n');
        size_t n = nl ? (size_t)(nl - k) : strlen(k);
        char line[160], entry[200];
        snprintf(line, sizeof line, "%.*s", (int)n, k);
        expand_glyphs(line, entry, sizeof entry);
        char *tab = strchr(entry, '\t');
        if (tab) {
            *tab = 0;
            add(h, false, entry, tab + 1);
        } else {
            add(h, false, entry, "");
        }
        k += n + (nl ? 1 : 0);
    }
}

static void collect(struct ui *ui, struct help_text *h, int width)
{
    h->n = 0;
    h->width = width;
    add(h, true, "Keys ([...]: the console command a key executes)", NULL);
    for (size_t i = 0; i < keys_count(); i++) {
        const struct key_binding *b = keys_get(i);
        char what[200];
        if (b->action == KA_COMMAND)
            snprintf(what, sizeof what, "%s  [%s]", b->help, b->command);
        else if (b->action == KA_BREAK)
            snprintf(what, sizeof what, "%s  [break layer N / delete N]", b->help);
        else if (b->action == KA_ADVANCE)
            snprintf(what, sizeof what, "%s  [advance layer N done]", b->help);
        else if (b->action == KA_QUIT)
            snprintf(what, sizeof what, "%s  [quit]", b->help);
        else
            snprintf(what, sizeof what, "%s", b->help);
        add(h, false, b->label, what);
    }
    add(h, false, "arrows hjkl", "move; PgUp/PgDn, Home/End: page, first, last");
    add(h, false, "mouse", "click selects a pane and an item; the wheel scrolls");
    add(h, false, "Ctrl-C", "interrupt a run (when idle, twice quits)");
    add(h, false, "Ctrl-D",
        "in the console, on an empty line: quit (asks while a run is in progress); at the "
        "\">\" of \"commands\": end the list");
    static const char *const headings[PANE_COUNT] = {
        "1 Layers pane", "2 Registers pane", "3 CBUF pane",     "4 LUT pane",
        "5 Perf pane",   "6 Memory pane",    "7 Timeline pane", "8 Tensor pane",
        "Console",
    };
    for (int i = 0; i < PANE_COUNT; i++)
        add_pane_keys(h, ui->pane[i], headings[i]);
}

void help_draw(struct ui *ui)
{
    static struct help_text h; /* large: keep it off the stack */
    int w = ui->cols - 6 < 100 ? ui->cols - 6 : 100;
    collect(ui, &h, w - 4);
    int hgt = ui->rows - 4 < h.n + 4 ? ui->rows - 4 : h.n + 4;
    if (w < 20 || hgt < 5)
        return;
    int y0 = (ui->rows - hgt) / 2, x0 = (ui->cols - w) / 2;
    int inner = hgt - 4;
    if (ui->help_top > h.n - inner)
        ui->help_top = h.n - inner;
    if (ui->help_top < 0)
        ui->help_top = 0;
    WINDOW *win = newwin(hgt, w, y0, x0);
    if (!win)
        return;
    wbkgdset(win, ' ' | theme(TH_OVERLAY));
    werase(win);
    wattrset(win, theme(TH_OVERLAY));
    box(win, 0, 0);
    mvwaddstr(win, 0, 2, " Help ");
    for (int i = 0; i < inner && ui->help_top + i < h.n; i++) {
        int k = ui->help_top + i;
        wattrset(win, theme(TH_OVERLAY) | (h.heading[k] ? A_BOLD : 0));
        mvwaddnstr(win, 1 + i, 2, h.line[k], w - 4);
    }
    wattrset(win, theme(TH_OVERLAY));
    char foot[120];
    snprintf(foot, sizeof foot, " lines %d-%d of %d: arrows/PgUp/PgDn scroll, ? or Esc closes ",
             ui->help_top + 1, ui->help_top + inner < h.n ? ui->help_top + inner : h.n, h.n);
    mvwaddnstr(win, hgt - 2, 2, foot, w - 4);
    wnoutrefresh(win);
    delwin(win);
}

bool help_key(struct ui *ui, int key)
{
    int page = ui->rows - 10 > 1 ? ui->rows - 10 : 1;
    switch (key) {
    case KEY_UP:
    case 'k':
        ui->help_top--;
        return true;
    case KEY_DOWN:
    case 'j':
        ui->help_top++;
        return true;
    case KEY_PPAGE:
        ui->help_top -= page;
        return true;
    case KEY_NPAGE:
    case ' ':
        ui->help_top += page;
        return true;
    case KEY_HOME:
        ui->help_top = 0;
        return true;
    case KEY_END:
        ui->help_top = HELP_MAX_LINES;
        return true;
    case KEY_RESIZE:
    case KEY_MOUSE:
        return true;
    default:
        return false; /* ?, Esc, q, anything else: close */
    }
}
