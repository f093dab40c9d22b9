/* Choosing the configuration of a session (see config_choice.h). */
#include "config_choice.h"

#include <stdio.h>
#include <string.h>

#include "config_detect.h"
#include "loadable/loadable.h"
#include "util/path.h"
#include "sample/sample_net.h"
#include "trace/trace.h"
#include "trace/txn_prog.h"

/* A trace dladbg exported ("export txn") names the configuration it ran on in
 * its first line: "# exported by dladbg V from FILE (configuration NAME)". */
static const struct dla_config *exported_config(const char *file)
{
    FILE *fp = fopen(file, "r");
    if (!fp)
        return NULL;
    char line[8192];
    const struct dla_config *c = NULL;
    if (fgets(line, sizeof line, fp) && !strncmp(line, "# exported by dladbg ", 21)) {
        const char *at = strstr(line, "(configuration ");
        char name[64];
        if (at && sscanf(at, "(configuration %63[^)])", name) == 1)
            c = dla_config_find(name);
    }
    fclose(fp);
    return c;
}

/* A .cfg names no configuration: NVIDIA keeps each test in the folder of
 * the one it was written for (verif/tests/trace_tests/CONFIG/TEST/TEST.cfg),
 * and only that folder tells.  Another configuration is allowed (conformance
 * runs tests across configurations on purpose), so it is said in one line,
 * not refused: its memory layout and CRC goldens are the folder's. */
static void cfg_other_than_folder(const char *file, const char *hint,
                                  const struct dla_config *asked, struct report *rep)
{
    const struct dla_config *folder = hint ? dla_config_find(hint) : NULL;
    if (!folder || folder == asked)
        return;
    char name[256];
    path_last_component(file, name, sizeof name);
    report_msg(rep, REPORT_WARNING,
               "%s: its folder says it was written for %s (NVIDIA's trace_tests/CONFIG/TEST "
               "layout); running it on %s as asked, where its surfaces' layout and CRC checks "
               "may not hold",
               name, folder->name, asked->name);
}

/* What the file tells; false when it tells nothing (or cannot be read: the
 * driver then reports why).  The parse is handed to kept when it is given. */
static bool detect(const char *path, enum trace_kind kind, const char *file,
                   struct cfg_detection *det, struct config_parse *kept)
{
    char err[512];
    if (kind == TRACE_TXN) {
        struct txn_prog *p = txn_prog_parse(file, err, sizeof err);
        if (!p)
            return false;
        config_detect_txn_prog(p, det);
        if (kept)
            kept->txn = p;
        else
            txn_prog_free(p);
        return det->evidence;
    }
    if (kind != TRACE_NONE)
        return false;
    struct loadable *l = sample_net_load(path, err, sizeof err);
    if (!l)
        return false;
    config_detect_loadable(l, det);
    if (kept)
        kept->loadable = l;
    else
        loadable_free(l);
    return det->evidence;
}

const struct dla_config *config_choose(const char *path, const struct dla_config *asked,
                                       struct report *rep, char *err, size_t errlen)
{
    return config_choose_parsed(path, asked, rep, NULL, err, errlen);
}

static const struct dla_config *choose(const char *path, const struct dla_config *asked,
                                       struct report *rep, struct config_parse *kept, char *err,
                                       size_t errlen)
{
    char file[4096], name[256], line[600];
    enum trace_kind kind = trace_detect(path, file, sizeof file);
    const struct dla_config *exported = kind == TRACE_TXN ? exported_config(file) : NULL;
    if (!asked && exported) {
        if (exported != dla_config_default())
            report_msg(rep, REPORT_NOTE,
                       "configuration %s (the trace was exported from a run on it; use --config "
                       "to choose another)",
                       exported->name);
        return exported;
    }
    if (kind == TRACE_CFG) {
        const char *hint = trace_cfg_config_hint(file);
        if (asked) {
            cfg_other_than_folder(file, hint, asked, rep);
            return asked;
        }
        const struct dla_config *c = dla_config_find(hint ? hint : "nv_small");
        report_msg(rep, REPORT_NOTE, "configuration %s (%s; use --config to choose another)",
                   c->name, hint ? "from the trace's folder" : "v2 trace default");
        return c;
    }
    struct cfg_detection det;
    if (exported || !detect(path, kind, file, &det, kept))
        return asked ? asked : dla_config_default();
    path_last_component(kind == TRACE_TXN ? file : path, name, sizeof name);
    const char *verb = kind == TRACE_TXN ? "written for" : "compiled for";
    const struct cfg_fit *best = &det.fits[0];
    if (asked) {
        const struct cfg_fit *f = config_detection_fit(&det, asked);
        if (f && f->violations && !best->violations) {
            snprintf(err, errlen, "%s: %s %s, it cannot run on %s: %s (use --config %s)", name,
                     verb, best->cfg->name, asked->name, f->why_not, best->cfg->name);
            return NULL;
        }
        return asked;
    }
    config_detection_line(&det, name, verb, line, sizeof line);
    /* the others that fit are "info config"'s to say, not every open's */
    char *others = strstr(line, "; also fits ");
    if (others)
        *others = 0;
    report_msg(rep, REPORT_INFO, "%s", line); /* -q leaves it out */
    return best->cfg;
}

bool config_describe(const char *path, char *buf, size_t len)
{
    char file[4096], name[256];
    enum trace_kind kind = trace_detect(path, file, sizeof file);
    struct cfg_detection det;
    if (!detect(path, kind, file, &det, NULL))
        return false;
    path_last_component(kind == TRACE_TXN ? file : path, name, sizeof name);
    config_detection_line(&det, name, kind == TRACE_TXN ? "written for" : "compiled for", buf, len);
    return true;
}

void config_parse_free(struct config_parse *kept)
{
    loadable_free(kept->loadable);
    txn_prog_free(kept->txn);
    *kept = (struct config_parse){0};
}

const struct dla_config *config_choose_parsed(const char *path, const struct dla_config *asked,
                                              struct report *rep, struct config_parse *kept,
                                              char *err, size_t errlen)
{
    if (kept)
        *kept = (struct config_parse){0};
    const struct dla_config *c = choose(path, asked, rep, kept, err, errlen);
    if (!c && kept) /* a refusal hands nothing on */
        config_parse_free(kept);
    return c;
}
