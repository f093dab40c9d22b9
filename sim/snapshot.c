/* Checkpoints: a deep copy of the model's state.  Memories share pages with
 * the live model until either side writes them, so a checkpoint costs little
 * more than the registers, CBUF and the layer records. */
#include <stdlib.h>
#include <string.h>

#include "dla_priv.h"

struct dla_snapshot {
    struct dla state; /* listeners are not part of it */
};

static bool clone_array(void **dst, const void *src, size_t n, size_t size)
{
    *dst = NULL;
    if (!n)
        return true;
    *dst = malloc(n * size);
    if (!*dst)
        return false;
    memcpy(*dst, src, n * size);
    return true;
}

static bool clone_pipe(struct dla_pipe *dst, const struct dla_pipe *src)
{
    *dst = *src;
    dst->writes = NULL;
    dst->xfers = NULL;
    dst->cap_writes = src->n_writes;
    dst->cap_xfers = src->n_xfers;
    if (!clone_array((void **)&dst->xfers, src->xfers, src->n_xfers, sizeof *src->xfers) ||
        !clone_array((void **)&dst->writes, src->writes, src->n_writes, sizeof *src->writes))
        return false;
    for (size_t i = 0; i < src->n_writes; i++) {
        dst->writes[i].data = NULL;
        dst->writes[i].cap = src->writes[i].len; /* the copy holds exactly the bytes */
        if (src->writes[i].data &&
            !clone_array((void **)&dst->writes[i].data, src->writes[i].data, src->writes[i].len, 1))
            return false;
    }
    return true;
}

/* Copy the owned parts of src into dst, whose plain fields already equal src's. */
static bool clone_owned(struct dla *dst, const struct dla *src)
{
    /* nothing of src's may be freed through dst if a clone below fails */
    dst->mem[DLA_DRAM] = dst->mem[DLA_CVSRAM] = NULL;
    dst->cbuf = NULL;
    dst->sched = NULL;
    dst->layer_chunks = NULL;
    dst->n_chunks = dst->cap_chunks = 0;
    for (int i = 0; i < DLA_MAX_PIPES; i++) {
        dst->pipe[i].writes = NULL;
        dst->pipe[i].n_writes = 0;
        dst->pipe[i].xfers = NULL;
    }
    dst->mem[DLA_DRAM] = mem_clone(src->mem[DLA_DRAM]);
    dst->mem[DLA_CVSRAM] = mem_clone(src->mem[DLA_CVSRAM]);
    dst->cbuf = cbuf_clone(src->cbuf);
    dst->cap_sched = src->n_sched;

    bool ok = dst->mem[DLA_DRAM] && dst->mem[DLA_CVSRAM] && dst->cbuf &&
              clone_array((void **)&dst->sched, src->sched, src->n_sched, sizeof *src->sched) &&
              layers_share(dst, src);
    for (int i = 0; ok && i < DLA_MAX_PIPES; i++)
        ok = clone_pipe(&dst->pipe[i], &src->pipe[i]);
    return ok;
}

struct dla_snapshot *dla_snapshot_take(const struct dla *d)
{
    struct dla_snapshot *s = malloc(sizeof *s);
    if (!s)
        return NULL;
    s->state = *d;
    s->state.n_listeners = 0;
    if (!clone_owned(&s->state, d)) {
        dla_free_owned(&s->state);
        free(s);
        return NULL;
    }
    return s;
}

void dla_snapshot_restore(struct dla *d, const struct dla_snapshot *s)
{
    struct dla fresh = s->state;
    if (!clone_owned(&fresh, &s->state))
        abort(); /* a checkpoint we cannot copy back is lost state; do not continue half-restored */
    /* listeners survive a restore */
    fresh.n_listeners = d->n_listeners;
    memcpy(fresh.listeners, d->listeners, sizeof d->listeners);
    memcpy(fresh.listener_handle, d->listener_handle, sizeof d->listener_handle);
    fresh.next_handle = d->next_handle;
    dla_free_owned(d);
    *d = fresh;
}

void dla_snapshot_free(struct dla_snapshot *s)
{
    if (!s)
        return;
    dla_free_owned(&s->state);
    free(s);
}
