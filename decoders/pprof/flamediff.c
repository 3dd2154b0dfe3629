/* flamediff.c - see flamediff.h. */
#include "decoders/pprof/flamediff.h"

#include "decoders/pprof/flame.h"
#include "decoders/pprof/pprof.h"


static void done(hf_snapref r, const hf_pprof *p)
{
    if (p && r.d->ops->stacks_done)
        r.d->ops->stacks_done(r.d, p);
}

uint64_t hf_flame_diff_render(hf_snapref before, hf_snapref now, uint64_t first, GString *out,
                              size_t budget)
{
    if (first != 0 || !before.d->ops->stacks || !now.d->ops->stacks)
        return HF_DONE;
    const hf_pprof *a = before.d->ops->stacks(before.d, before.s);
    const hf_pprof *b = now.d->ops->stacks(now.d, now.s);
    if (a && b)
        hf_flame_render_diff(b, a, HF_PPROF_INUSE_BYTES,
                             "Differential flame graph: bytes now (stacks.folded); red grew, "
                             "blue shrank since the snapshot before",
                             "bytes", out);
    done(before, a);
    done(now, b);
    return HF_DONE;
}
