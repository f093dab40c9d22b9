/* RUBIK. */
#include "dla_priv.h"

int rubik_execute(struct dla *d, struct dla_exec *x, int group)
{
    exec_desc(x, "rubik (not modelled yet)");
    dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_RBK, 0, NULL,
             "RUBIK of group %d: not modelled yet", group);
    return -1;
}
