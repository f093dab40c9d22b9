/* Colours and glyphs.  Every role has a colour form and a monochrome form
 * (bold, reverse, underline), so --no-color, NO_COLOR (https://no-color.org)
 * and terminals without colours lose no information: whatever colour says is
 * also said by a character (a mark, a letter, a bar) somewhere. */
#include <langinfo.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

struct role_style {
    short fg, bg; /* colour form */
    attr_t attr;  /* added to the colour form */
    attr_t mono;  /* monochrome form */
};

static const struct role_style styles[TH_ROLE_COUNT] = {
    [TH_NORMAL] = {-1, -1, A_NORMAL, A_NORMAL},
    [TH_DIM] = {COLOR_BLUE, -1, A_BOLD, A_DIM},
    [TH_BORDER] = {COLOR_BLUE, -1, A_NORMAL, A_NORMAL},
    [TH_BORDER_FOCUS] = {COLOR_CYAN, -1, A_BOLD, A_BOLD},
    [TH_TITLE] = {COLOR_CYAN, -1, A_NORMAL, A_NORMAL},
    [TH_TITLE_FOCUS] = {COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD},
    [TH_CURSOR] = {COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE},
    [TH_CURSOR_IDLE] = {COLOR_WHITE, COLOR_BLUE, A_NORMAL, A_UNDERLINE},
    [TH_CHANGED] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD | A_UNDERLINE},
    [TH_HEADER] = {COLOR_GREEN, -1, A_BOLD, A_BOLD},
    [TH_STATUS] = {COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE},
    [TH_STATUS_STOP] = {COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_REVERSE | A_BOLD},
    [TH_STATUS_RUN] = {COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD},
    [TH_KEY] = {COLOR_WHITE, -1, A_BOLD, A_BOLD},
    [TH_KEY_LABEL] = {COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE},
    [TH_STATE_PROG] = {COLOR_MAGENTA, -1, A_NORMAL, A_NORMAL},
    [TH_STATE_PEND] = {COLOR_YELLOW, -1, A_NORMAL, A_NORMAL},
    [TH_STATE_RUN] = {COLOR_GREEN, -1, A_BOLD, A_BOLD},
    [TH_STATE_DONE] = {-1, -1, A_NORMAL, A_NORMAL},
    [TH_BREAK] = {COLOR_RED, -1, A_BOLD, A_BOLD},
    [TH_CURRENT] = {COLOR_GREEN, -1, A_BOLD, A_BOLD},
    [TH_OUT_TEXT] = {-1, -1, A_NORMAL, A_NORMAL},
    [TH_OUT_STOP] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
    [TH_OUT_NOTE] = {COLOR_CYAN, -1, A_NORMAL, A_NORMAL},
    [TH_OUT_WARN] = {COLOR_MAGENTA, -1, A_BOLD, A_BOLD},
    [TH_OUT_ERROR] = {COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE},
    [TH_OUT_ECHO] = {COLOR_GREEN, -1, A_NORMAL, A_BOLD},
    [TH_BAR] = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
    [TH_BAR_STALL] = {COLOR_RED, -1, A_NORMAL, A_NORMAL},
    [TH_PLOT] = {COLOR_CYAN, -1, A_BOLD, A_NORMAL},
    [TH_HIST] = {COLOR_YELLOW, -1, A_NORMAL, A_NORMAL},
    [TH_OVERLAY] = {COLOR_WHITE, COLOR_BLUE, A_NORMAL, A_REVERSE},
};

/* Owner colours for layers: backgrounds that keep black text readable. */
static const short layer_bg[] = {COLOR_CYAN,    COLOR_GREEN, COLOR_YELLOW,
                                 COLOR_MAGENTA, COLOR_BLUE,  COLOR_RED};
#define N_LAYER_COLOURS (sizeof layer_bg / sizeof layer_bg[0])
#define LAYER_PAIR0     (TH_ROLE_COUNT + 1)

static bool colour_on;
static bool utf8;

static bool no_color_env(void)
{
    const char *v = getenv("NO_COLOR");
    return v && *v;
}

void theme_init(bool colour)
{
    const char *cs = nl_langinfo(CODESET);
    utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
    colour_on = colour && !no_color_env() && has_colors();
    if (!colour_on)
        return;
    start_color();
    use_default_colors();
    for (int r = 0; r < TH_ROLE_COUNT; r++)
        init_pair((short)(r + 1), styles[r].fg, styles[r].bg);
    for (size_t i = 0; i < N_LAYER_COLOURS; i++) {
        short fg =
            layer_bg[i] == COLOR_BLUE || layer_bg[i] == COLOR_RED ? COLOR_WHITE : COLOR_BLACK;
        init_pair((short)(LAYER_PAIR0 + i), fg, layer_bg[i]);
    }
}

bool theme_has_colour(void)
{
    return colour_on;
}

attr_t theme(enum theme_role r)
{
    if (r < 0 || r >= TH_ROLE_COUNT)
        return A_NORMAL;
    if (!colour_on)
        return styles[r].mono;
    return COLOR_PAIR(r + 1) | styles[r].attr;
}

attr_t theme_layer(long layer)
{
    if (layer < 0)
        return theme(TH_DIM);
    if (!colour_on) /* the layer number is printed; alternate so neighbours differ */
        return (layer & 1) ? A_REVERSE : A_BOLD | A_UNDERLINE;
    return COLOR_PAIR(LAYER_PAIR0 + (short)((unsigned long)layer % N_LAYER_COLOURS));
}

const char *theme_glyph(enum glyph g)
{
    static const char *const uni[GL_COUNT] = {"\u2588", "\u2591", "\u25cf",
                                              "\u25b6", "\u00b7", "\u2502"};
    static const char *const ascii[GL_COUNT] = {"#", ".", "*", ">", ".", "|"};
    if (g >= GL_COUNT)
        return "?";
    return utf8 ? uni[g] : ascii[g];
}

const char *theme_level(unsigned level)
{
    static const char *const uni[9] = {" ",      "\u2581", "\u2582", "\u2583", "\u2584",
                                       "\u2585", "\u2586", "\u2587", "\u2588"};
    static const char *const ascii[9] = {" ", ".", ".", ":", ":", "+", "+", "#", "#"};
    if (level > 8)
        level = 8;
    return utf8 ? uni[level] : ascii[level];
}
