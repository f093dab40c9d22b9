/* Pane 2: the registers of one unit and group, every field decoded, values
 * that changed since the last stop marked ('*') and highlighted, and editing
 * in place: the edited value becomes the console command
 * "reg UNIT.REG[.FIELD] = VALUE", so a poke is an ordinary traced CSB write.
 *
 * "Changed since the last stop" compares two snapshots of every register of
 * every unit: the values at the stop before and at the latest stop.  A stop
 * that changed nothing (info, help) keeps the older snapshot, so highlights
 * survive commands that only look. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/format.h"
#include "ui.h"

struct reg_values {
    const struct regdb_unit *db[DLA_U_COUNT]; /* the table each unit's values follow */
    /* per unit and group, indexed like db->regs; a register without groups
     * (not dual) is read into group 0 only and stays 0 in group 1 */
    uint32_t *v[DLA_U_COUNT][2];
};

struct regs_pane {
    unsigned model_gen; /* ui->model_gen of the model the snapshots belong to */
    struct reg_values prev, cur;
    bool have;
    int reg;   /* selected register (index in the unit's table) */
    int field; /* selected field of it, -1: the register row */
    int unit_shown, group_shown;
    bool user_moved;    /* the cursor was moved since the unit was shown: leave it */
    bool cursor_to_top; /* scroll the selection to the top (it moved by itself) */
    /* edit in progress */
    int edit_unit, edit_reg, edit_field, edit_group; /* group -1: not a D_ register */
};

/* ---------------------------------------------------------------- values */

static uint32_t read_reg(struct dla *d, enum dla_unit u, int group, const struct regdb_unit *ru,
                         const struct regdb_reg *r)
{
    /* status registers are computed when read: peek shows what a read would */
    if (!r->dual)
        return dla_csb_peek(d, regdb_addr(ru, r));
    return dla_reg_value(d, u, group, r->offset);
}

static void unit_values_free(struct reg_values *v, int u)
{
    for (int g = 0; g < 2; g++) {
        free(v->v[u][g]);
        v->v[u][g] = NULL;
    }
    v->db[u] = NULL;
}

static void values_free(struct reg_values *v)
{
    for (int u = 0; u < DLA_U_COUNT; u++)
        unit_values_free(v, u);
}

static bool values_read(struct dla *d, struct reg_values *v)
{
    for (int u = 0; u < DLA_U_COUNT; u++) {
        const struct regdb_unit *ru = dla_unit_db(d, (enum dla_unit)u);
        if (v->db[u] != ru) /* another register map: other sizes */
            unit_values_free(v, u);
        v->db[u] = ru;
        for (int g = 0; g < 2; g++) {
            if (!ru || !ru->n_regs)
                continue;
            if (!v->v[u][g])
                v->v[u][g] = calloc(ru->n_regs, sizeof(uint32_t));
            if (!v->v[u][g])
                return false;
            for (uint16_t i = 0; i < ru->n_regs; i++)
                if (g == 0 || ru->regs[i].dual)
                    v->v[u][g][i] = read_reg(d, (enum dla_unit)u, g, ru, &ru->regs[i]);
        }
    }
    return true;
}

static bool values_equal(const struct reg_values *a, const struct reg_values *b)
{
    for (int u = 0; u < DLA_U_COUNT; u++) {
        if (a->db[u] != b->db[u])
            return false;
        for (int g = 0; g < 2 && a->db[u]; g++)
            if (a->v[u][g] && b->v[u][g] &&
                memcmp(a->v[u][g], b->v[u][g], a->db[u]->n_regs * sizeof(uint32_t)))
                return false;
    }
    return true;
}

/* After a stop: the latest snapshot becomes the previous one if anything changed. */
static void roll_snapshots(struct regs_pane *rp, struct ui *ui)
{
    struct dla *d = ui_dla(ui);
    if (rp->model_gen != ui->model_gen || !rp->have) {
        /* another model may have another register map: start afresh */
        values_free(&rp->prev);
        values_free(&rp->cur);
        rp->model_gen = ui->model_gen;
        rp->have = d && values_read(d, &rp->cur) && values_read(d, &rp->prev);
        return;
    }
    struct reg_values fresh = {0};
    if (!values_read(d, &fresh)) {
        values_free(&fresh);
        return;
    }
    if (values_equal(&fresh, &rp->cur)) {
        values_free(&fresh);
        return;
    }
    values_free(&rp->prev);
    rp->prev = rp->cur;
    rp->cur = fresh;
}

/* Both snapshots of unit u, group g, taken with the register table ru; else NULL. */
static bool snapshots_of(const struct regs_pane *rp, const struct regdb_unit *ru, int u, int g,
                         const uint32_t **prev, const uint32_t **cur)
{
    if (!rp->have || !ru || rp->prev.db[u] != ru || rp->cur.db[u] != ru || !rp->prev.v[u][g] ||
        !rp->cur.v[u][g])
        return false;
    *prev = rp->prev.v[u][g];
    *cur = rp->cur.v[u][g];
    return true;
}

static bool changed(const struct regs_pane *rp, const struct regdb_unit *ru, int u, int g, int i)
{
    const uint32_t *prev, *cur;
    return snapshots_of(rp, ru, u, g, &prev, &cur) && i < ru->n_regs && prev[i] != cur[i];
}

/* Put the cursor on what the stop changed: the first changed D_ register of
 * the unit and group shown (the layer's programming), else the first changed
 * register, else the first register. */
static void select_first_change(struct regs_pane *rp, struct ui *ui)
{
    struct dla *d = ui_dla(ui);
    const struct regdb_unit *ru = d ? dla_unit_db(d, (enum dla_unit)ui->unit) : NULL;
    rp->reg = 0;
    rp->field = -1;
    rp->cursor_to_top = true;
    if (!ru)
        return;
    int any = -1;
    for (int i = 0; i < ru->n_regs; i++) {
        int g = ru->regs[i].dual ? ui->group : 0;
        if (!changed(rp, ru, ui->unit, g, i))
            continue;
        if (ru->regs[i].dual) {
            rp->reg = i;
            return;
        }
        if (any < 0)
            any = i;
    }
    if (any >= 0)
        rp->reg = any;
}

/* ---------------------------------------------------------------- units */

static bool unit_shown(struct dla *d, enum dla_unit u)
{
    const struct regdb_unit *ru = dla_unit_db(d, u);
    const struct dla_config *c = dla_cfg(d);
    if (!ru || !ru->n_regs)
        return false;
    if ((u == DLA_U_BDMA && !c->bdma) || (u == DLA_U_RBK && !c->rubik) ||
        (u == DLA_U_CVIF && !c->cvsram))
        return false;
    return true;
}

static int next_unit(struct dla *d, int u, int dir)
{
    for (int k = 0; k < DLA_U_COUNT; k++) {
        u = (u + dir + DLA_U_COUNT) % DLA_U_COUNT;
        if (unit_shown(d, (enum dla_unit)u))
            return u;
    }
    return u;
}

/* ---------------------------------------------------------------- rows */

struct row {
    int reg, field;
};

/* Rows: every register, and the fields of the selected one below it. */
static int build_rows(const struct regs_pane *rp, const struct regdb_unit *ru, struct row *rows,
                      int max)
{
    int n = 0;
    for (int i = 0; i < ru->n_regs && n < max; i++) {
        rows[n++] = (struct row){i, -1};
        if (i != rp->reg)
            continue;
        for (int f = 0; f < ru->regs[i].n_fields && n < max; f++)
            rows[n++] = (struct row){i, f};
    }
    return n;
}

static int row_of_selection(const struct regs_pane *rp, const struct row *rows, int n)
{
    for (int i = 0; i < n; i++)
        if (rows[i].reg == rp->reg && rows[i].field == rp->field)
            return i;
    return 0;
}

/* Register names get what the value column leaves ("* NAME 0x12345678"). */
static int name_width(struct pane *p, const struct regdb_unit *ru)
{
    int w = 8;
    for (uint16_t i = 0; i < ru->n_regs; i++) {
        int n = (int)strlen(ru->regs[i].name);
        if (n > w)
            w = n;
    }
    int room = pane_cols(p) - 14;
    if (w > room)
        w = room;
    return w < 8 ? 8 : w > 30 ? 30 : w;
}

/* Field names likewise ("*    NAME [12:0]  = value"). */
static int field_width(struct pane *p)
{
    int w = pane_cols(p) - 30;
    return w < 8 ? 8 : w > 24 ? 24 : w;
}

static void draw_reg_row(struct pane *p, struct ui *ui, int row, const struct regdb_unit *ru, int i,
                         int nw, attr_t cursor_attr)
{
    struct regs_pane *rp = p->priv;
    const struct regdb_reg *r = &ru->regs[i];
    int g = r->dual ? ui->group : 0;
    uint32_t v = read_reg(ui_dla(ui), (enum dla_unit)ui->unit, g, ru, r);
    bool ch = changed(rp, ru, ui->unit, g, i);
    attr_t base = cursor_attr ? cursor_attr : theme(TH_NORMAL);
    pane_fill(p, row, 0, base);
    int x =
        pane_print(p, row, 0, ch && !cursor_attr ? theme(TH_CHANGED) : base, "%s", ch ? "*" : " ");
    x += pane_print(p, row, x, base, " %-*.*s ", nw, nw, r->name);
    x += pane_print(p, row, x, ch && !cursor_attr ? theme(TH_CHANGED) : base, "0x%08x", v);
    char fields[512];
    format_fields_inline(r, v, fields, sizeof fields); /* as "info regs" writes them */
    pane_print(p, row, x, cursor_attr ? base : theme(TH_DIM), "%s %s",
               r->access == REGDB_RO ? " ro" : "   ", fields);
}

static void draw_field_row(struct pane *p, struct ui *ui, int row, const struct regdb_unit *ru,
                           int i, int f, attr_t cursor_attr)
{
    struct regs_pane *rp = p->priv;
    const struct regdb_reg *r = &ru->regs[i];
    const struct regdb_field *fd = &r->fields[f];
    int g = r->dual ? ui->group : 0;
    uint32_t v = regdb_field_get(fd, read_reg(ui_dla(ui), (enum dla_unit)ui->unit, g, ru, r));
    const uint32_t *prev, *cur;
    bool ch = snapshots_of(rp, ru, ui->unit, g, &prev, &cur) &&
              regdb_field_get(fd, prev[i]) != regdb_field_get(fd, cur[i]);
    attr_t base = cursor_attr ? cursor_attr : theme(TH_NORMAL);
    pane_fill(p, row, 0, base);
    char bits[16];
    format_field_bits(fd, bits, sizeof bits);
    const char *e = regdb_enum_name(fd, v);
    int x =
        pane_print(p, row, 0, ch && !cursor_attr ? theme(TH_CHANGED) : base, "%s", ch ? "*" : " ");
    int fw = field_width(p);
    x += pane_print(p, row, x, base, "   %-*.*s %-7s = ", fw, fw, fd->name, bits);
    pane_print(p, row, x, ch && !cursor_attr ? theme(TH_CHANGED) : base, "%u (0x%x)%s%s%s", v, v,
               e ? " " : "", e ? e : "", fd->access == REGDB_RO ? "  ro" : "");
}

#define MAX_ROWS 1024

static void draw(struct pane *p, struct ui *ui)
{
    struct regs_pane *rp = p->priv;
    struct dla *d = ui_dla(ui);
    if (!d) {
        pane_print(p, 0, 1, theme(TH_DIM), "no file open");
        return;
    }
    if (rp->model_gen != ui->model_gen)
        roll_snapshots(rp, ui);
    if (!unit_shown(d, (enum dla_unit)ui->unit))
        ui->unit = next_unit(d, ui->unit, 1);
    if (rp->unit_shown != ui->unit || rp->group_shown != ui->group) {
        rp->unit_shown = ui->unit;
        rp->group_shown = ui->group;
        rp->user_moved = false;
        p->top = 0;
        select_first_change(rp, ui);
    }
    const struct regdb_unit *ru = dla_unit_db(d, (enum dla_unit)ui->unit);
    static struct row rows[MAX_ROWS];
    if (rp->reg >= ru->n_regs)
        rp->reg = ru->n_regs - 1;
    int n = build_rows(rp, ru, rows, MAX_ROWS);
    p->cursor = row_of_selection(rp, rows, n);
    int visible = pane_rows(p) - 1;
    if (rp->cursor_to_top) { /* with one row of what comes before */
        p->top = p->cursor > 0 ? p->cursor - 1 : 0;
        rp->cursor_to_top = false;
    }
    pane_list_clamp(p, n, visible);
    int nw = name_width(p, ru);
    pane_print(p, 0, 0, theme(TH_HEADER), "  %-*s %-10s    %s", nw, "register", "value",
               "fields (Enter/e edits, * changed since the last stop)");
    bool focused = ui->focus == PANE_REGS;
    for (int r = 0; r < visible && p->top + r < n; r++) {
        const struct row *row = &rows[p->top + r];
        attr_t cur = p->top + r == p->cursor ? theme(focused ? TH_CURSOR : TH_CURSOR_IDLE) : 0;
        if (row->field < 0)
            draw_reg_row(p, ui, r + 1, ru, row->reg, nw, cur);
        else
            draw_field_row(p, ui, r + 1, ru, row->reg, row->field, cur);
    }
}

/* ---------------------------------------------------------------- keys */

static void move_selection(struct regs_pane *rp, const struct regdb_unit *ru, int dir)
{
    int nf = ru->regs[rp->reg].n_fields;
    if (dir > 0) {
        if (rp->field + 1 < nf) {
            rp->field++;
        } else if (rp->reg + 1 < ru->n_regs) {
            rp->reg++;
            rp->field = -1;
        }
    } else if (rp->field >= 0) {
        rp->field--;
    } else if (rp->reg > 0) {
        rp->reg--;
    }
}

static void edit_done(struct ui *ui, void *ctx, const char *text)
{
    struct pane *p = ctx;
    struct regs_pane *rp = p->priv;
    struct dla *d = ui_dla(ui);
    if (!d || !*text)
        return;
    const struct regdb_unit *ru = dla_unit_db(d, (enum dla_unit)rp->edit_unit);
    if (!ru || rp->edit_reg >= ru->n_regs)
        return;
    const struct regdb_reg *r = &ru->regs[rp->edit_reg];
    char name[160], group[16] = "";
    if (rp->edit_field >= 0)
        snprintf(name, sizeof name, "%s.%s.%s", ru->name, r->name, r->fields[rp->edit_field].name);
    else
        snprintf(name, sizeof name, "%s.%s", ru->name, r->name);
    if (rp->edit_group >= 0)
        snprintf(group, sizeof group, "@%d", rp->edit_group & 1);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "reg %s%s = %s", name, group, text);
    ui_exec_key(ui, cmd);
}

static void start_edit(struct pane *p, struct ui *ui)
{
    struct regs_pane *rp = p->priv;
    struct dla *d = ui_dla(ui);
    const struct regdb_unit *ru = dla_unit_db(d, (enum dla_unit)ui->unit);
    const struct regdb_reg *r = &ru->regs[rp->reg];
    if (format_is_read_only(r, rp->field >= 0 ? &r->fields[rp->field] : NULL)) {
        ui_message(ui, true, "%s.%s%s%s is read-only", ru->name, r->name, rp->field >= 0 ? "." : "",
                   rp->field >= 0 ? r->fields[rp->field].name : "");
        return;
    }
    int g = r->dual ? ui->group : 0;
    int producer = dla_producer_group(d, (enum dla_unit)ui->unit);
    if (r->dual && g != producer) {
        /* the hardware cannot write this copy now: say so rather than write the other one */
        ui_message(ui, true, "CSB writes reach group %d of %s (S_POINTER.PRODUCER); g shows it",
                   producer, ru->name);
        return;
    }
    uint32_t v = read_reg(d, (enum dla_unit)ui->unit, g, ru, r);
    char initial[32];
    if (rp->field >= 0)
        snprintf(initial, sizeof initial, "%u", regdb_field_get(&r->fields[rp->field], v));
    else
        snprintf(initial, sizeof initial, "0x%08x", v);
    rp->edit_unit = ui->unit;
    rp->edit_reg = rp->reg;
    rp->edit_field = rp->field;
    rp->edit_group = r->dual ? g : -1;
    /* over the value column of the selected row */
    int nw = name_width(p, ru);
    int col = rp->field >= 0 ? 1 + 3 + field_width(p) + 1 + 7 + 3 : 1 + 1 + nw + 1;
    ui_prompt_at(ui, p, p->cursor - p->top + 1, col, 24, initial, edit_done, p);
}

static bool key(struct pane *p, struct ui *ui, int k)
{
    struct regs_pane *rp = p->priv;
    struct dla *d = ui_dla(ui);
    if (!d)
        return false;
    const struct regdb_unit *ru = dla_unit_db(d, (enum dla_unit)ui->unit);
    if (!ru)
        return false;
    int page = pane_rows(p) - 2 > 1 ? pane_rows(p) - 2 : 1;
    rp->user_moved = true;
    switch (k) {
    case KEY_DOWN:
    case 'j':
        move_selection(rp, ru, 1);
        return true;
    case KEY_UP:
    case 'k':
        move_selection(rp, ru, -1);
        return true;
    case KEY_NPAGE:
        rp->reg = rp->reg + page < ru->n_regs ? rp->reg + page : ru->n_regs - 1;
        rp->field = -1;
        return true;
    case KEY_PPAGE:
        rp->reg = rp->reg - page > 0 ? rp->reg - page : 0;
        rp->field = -1;
        return true;
    case KEY_HOME:
        rp->reg = 0;
        rp->field = -1;
        return true;
    case KEY_END:
        rp->reg = ru->n_regs - 1;
        rp->field = -1;
        return true;
    case KEY_LEFT:
    case 'h':
    case '[':
    case KEY_RIGHT:
    case 'l':
    case ']': {
        int dir = k == KEY_LEFT || k == 'h' || k == '[' ? -1 : 1;
        ui->unit = next_unit(d, ui->unit, dir);
        ui->unit_pinned = true;
        return true;
    }
    case 'g':
        ui->group ^= 1;
        return true;
    case 'u': /* follow the selected layer's unit again */
        ui->unit_pinned = false;
        ui_select_layer(ui, ui->layer);
        return true;
    case 'e':
    case '\n':
    case KEY_ENTER:
        start_edit(p, ui);
        return true;
    default:
        return false;
    }
}

static bool mouse(struct pane *p, struct ui *ui, int row, int col, mmask_t bstate)
{
    (void)col;
    struct regs_pane *rp = p->priv;
    struct dla *d = ui_dla(ui);
    if (!d)
        return false;
    int wheel = pane_wheel_key(bstate, KEY_UP, KEY_DOWN);
    if (wheel)
        return key(p, ui, wheel);
    const struct regdb_unit *ru = dla_unit_db(d, (enum dla_unit)ui->unit);
    static struct row rows[MAX_ROWS];
    int n = build_rows(rp, ru, rows, MAX_ROWS);
    int i = p->top + row - 1;
    if (row < 1 || i >= n)
        return false;
    rp->user_moved = true;
    rp->reg = rows[i].reg;
    rp->field = rows[i].field;
    return true;
}

static void title(struct pane *p, struct ui *ui, char *buf, size_t len)
{
    (void)p;
    struct dla *d = ui_dla(ui);
    if (!d) {
        snprintf(buf, len, "Registers");
        return;
    }
    const struct regdb_unit *ru = dla_unit_db(d, (enum dla_unit)ui->unit);
    /* whose registers: the selected layer's, or a unit the user chose */
    char whose[32];
    if (ui->unit_pinned)
        snprintf(whose, sizeof whose, "pinned");
    else if (ui->layer >= 0)
        snprintf(whose, sizeof whose, "layer %ld", ui->layer);
    else
        snprintf(whose, sizeof whose, "no layer");
    if (ru && ru->op_enable != 0xffff)
        snprintf(buf, len, "Registers %s group %d (%s; producer %d, consumer %d)", ru->name,
                 ui->group, whose, dla_producer_group(d, (enum dla_unit)ui->unit),
                 dla_consumer_group(d, (enum dla_unit)ui->unit));
    else
        snprintf(buf, len, "Registers %s (%s)", ru ? ru->name : "?", whose);
}

static bool selected(struct pane *p, struct ui *ui, char *buf, size_t len)
{
    struct regs_pane *rp = p->priv;
    struct dla *d = ui_dla(ui);
    if (!d)
        return false;
    const struct regdb_unit *ru = dla_unit_db(d, (enum dla_unit)ui->unit);
    if (!ru || rp->reg >= ru->n_regs)
        return false;
    const struct regdb_reg *r = &ru->regs[rp->reg];
    if (rp->field >= 0)
        snprintf(buf, len, "%s.%s.%s", ru->name, r->name, r->fields[rp->field].name);
    else
        snprintf(buf, len, "%s.%s", ru->name, r->name);
    return true;
}

static void stopped(struct pane *p, struct ui *ui)
{
    struct regs_pane *rp = p->priv;
    roll_snapshots(rp, ui);
    if (!rp->user_moved && rp->unit_shown == ui->unit && rp->group_shown == ui->group)
        select_first_change(rp, ui);
}

/* ---------------------------------------------------------------- search */

static bool name_matches(const char *name, const char *text)
{
    size_t n = strlen(text);
    for (const char *s = name; *s; s++)
        if (!strncasecmp(s, text, n))
            return true;
    return false;
}

bool regs_search(struct ui *ui, const char *text)
{
    struct pane *p = ui->pane[PANE_REGS];
    struct regs_pane *rp = p->priv;
    struct dla *d = ui_dla(ui);
    if (!d || !*text)
        return false;
    /* "UNIT.NAME" searches that unit's registers only */
    char unit_part[32] = "";
    const char *dot = strchr(text, '.');
    if (dot && dot - text < (int)sizeof unit_part) {
        snprintf(unit_part, sizeof unit_part, "%.*s", (int)(dot - text), text);
        text = dot + 1;
    }
    int u = ui->unit, start = rp->reg + 1;
    for (int k = 0; k <= DLA_U_COUNT; k++) {
        const struct regdb_unit *ru = dla_unit_db(d, (enum dla_unit)u);
        bool unit_ok = unit_shown(d, (enum dla_unit)u) &&
                       (!unit_part[0] || regdb_unit_named(dla_regmap(d), unit_part) == ru);
        for (int i = start; unit_ok && i < ru->n_regs; i++) {
            if (!name_matches(ru->regs[i].name, text))
                continue;
            if (u != ui->unit) {
                ui->unit = u;
                ui->unit_pinned = true;
            }
            rp->unit_shown = u;
            rp->group_shown = ui->group;
            rp->user_moved = true;
            rp->reg = i;
            rp->field = -1;
            return true;
        }
        u = (u + 1) % DLA_U_COUNT;
        start = 0;
    }
    return false;
}

static void destroy(struct pane *p)
{
    struct regs_pane *rp = p->priv;
    values_free(&rp->prev);
    values_free(&rp->cur);
    free(rp);
}

/* The key bar's share of keys_help while the pane has the focus. */
static const struct pane_key bar_keys[] = {
    {"g", "Group"},
    {"e", "Edit"},
    {"[ ]", "Unit"},
    {NULL, NULL},
};

static const struct pane_ops ops = {
    .name = "regs",
    .keys_help = "h l [ ]\tprevious / next unit (pins it; u follows the layer again)\n"
                 "g\tshow the other register group\n"
                 "Enter e\tedit the value in place: executes reg UNIT.REG[.FIELD] = VALUE\n"
                 "/\tsearch a register by name (UNIT.NAME limits to a unit; Enter repeats)\n"
                 "\tunits the configuration lacks (nv_small: BDMA, RBK) are left out; reg, print "
                 "and break reg refuse their registers",
    .bar_keys = bar_keys,
    .draw = draw,
    .key = key,
    .mouse = mouse,
    .title = title,
    .selected = selected,
    .stopped = stopped,
    .destroy = destroy,
};

struct pane *pane_regs_create(void)
{
    struct pane *p = pane_alloc(&ops, sizeof(struct regs_pane));
    if (!p)
        return NULL;
    struct regs_pane *rp = p->priv;
    rp->field = -1;
    rp->unit_shown = -1;
    rp->group_shown = -1;
    return p;
}
