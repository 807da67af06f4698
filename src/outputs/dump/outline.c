/* outline.c - blocks, counts and names of a decoded input, for people. */
#include "outputs/dump/outline.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Distinct event names of one block with their counts (small linear table:
 * a block rarely has more than a few dozen distinct names). */
typedef struct name_count {
    const char *name;
    uint32_t len;
    uint32_t count;
} name_count;

#define MAX_NAMES 64

void etp_outline_etdump(const etp_etdump *d, FILE *fp)
{
    uint32_t nruns = etp_etdump_run_count(d);
    fprintf(fp, "ETDump %s: %zu bytes, schema version %u, %u block%s\n", etp_etdump_path(d),
            etp_etdump_size(d), etp_etdump_version(d), nruns, nruns == 1 ? "" : "s");
    for (uint32_t i = 0; i < nruns; i++) {
        etp_run r;
        etp_etdump_run(d, i, &r);
        uint32_t nprof = 0, ndbg = 0, nalloc = 0, nempty = 0, ndel = 0, nout = 0;
        uint64_t first = UINT64_MAX, last = 0;
        name_count names[MAX_NAMES];
        uint32_t nnames = 0, other = 0;
        for (uint32_t j = 0; j < r.event_count; j++) {
            etp_event e;
            etp_etdump_event(d, &r, j, &e);
            if (!e.kinds)
                nempty++;
            if (e.kinds & ETP_EV_ALLOCATION)
                nalloc++;
            if (e.kinds & ETP_EV_DEBUG) {
                ndbg++;
                nout += e.debug.is_output;
            }
            if (!(e.kinds & ETP_EV_PROFILE))
                continue;
            nprof++;
            const etp_profile_event *pe = &e.profile;
            if (pe->start_time < first)
                first = pe->start_time;
            if (pe->end_time > last)
                last = pe->end_time;
            if (!pe->name) {
                ndel++;
                continue;
            }
            uint32_t k;
            for (k = 0; k < nnames; k++)
                if (names[k].len == pe->name_len && !memcmp(names[k].name, pe->name, pe->name_len))
                    break;
            if (k < nnames)
                names[k].count++;
            else if (nnames < MAX_NAMES)
                names[nnames++] = (name_count){pe->name, pe->name_len, 1};
            else
                other++;
        }
        fprintf(fp, "  [%u] %-8s %u events: %u profile (%u delegate-internal), %u debug (%u program "
                    "outputs), %u allocation",
                i, r.name ? r.name : "(unnamed)", r.event_count, nprof, ndel, ndbg, nout, nalloc);
        if (nempty)
            fprintf(fp, ", %u empty", nempty);
        fputc('\n', fp);
        if (r.bundled_input_index != -1)
            fprintf(fp, "      bundled input index %d\n", r.bundled_input_index);
        for (uint32_t a = 0; a < r.allocator_count; a++) {
            const char *an = etp_etdump_allocator_name(d, &r, a);
            fprintf(fp, "      allocator %u: %s\n", a + 1, an ? an : "(unnamed)");
        }
        if (nprof)
            fprintf(fp, "      ticks %" PRIu64 " .. %" PRIu64 "\n", first, last);
        for (uint32_t k = 0; k < nnames; k++)
            fprintf(fp, "      %6u x %s\n", names[k].count, names[k].name);
        if (other)
            fprintf(fp, "      %6u x (more names)\n", other);
    }
}

static void print_ints(FILE *fp, const int32_t *v, uint32_t n)
{
    fputc('[', fp);
    for (uint32_t i = 0; i < n; i++)
        fprintf(fp, "%s%d", i ? "," : "", v[i]);
    fputc(']', fp);
}

void etp_outline_program(const etp_program *p, FILE *fp)
{
    if (p->bundled) {
        fprintf(fp, "bundled program %s: %zu bytes, version %u, embedded program %" PRIu64
                    " bytes at offset %" PRIu64 "\n",
                p->path, p->file_size, p->bundled_version, p->program_length, p->program_offset);
        for (uint32_t i = 0; i < p->suite_count; i++) {
            const etp_test_suite *s = &p->suites[i];
            fprintf(fp, "  test suite %s: %u case%s", s->method_name ? s->method_name : "(unnamed)",
                    s->case_count, s->case_count == 1 ? "" : "s");
            for (uint32_t k = 0; k < s->case_count; k++)
                fprintf(fp, "%s%u in/%u out", k ? ", " : " (", s->input_counts[k], s->output_counts[k]);
            fputs(s->case_count ? ")\n" : "\n", fp);
        }
    }
    fprintf(fp, "program %s: %" PRIu64 " bytes, ET12 version %u, %u method%s\n", p->path,
            p->program_length, p->version, p->plan_count, p->plan_count == 1 ? "" : "s");
    if (p->has_extended_header)
        fprintf(fp, "  extended header: program %" PRIu64 " bytes, segments at %" PRIu64
                    ", %" PRIu64 " bytes of segment data\n",
                p->header_program_size, p->segment_base_offset, p->segment_data_size);
    for (uint32_t i = 0; i < p->segment_count; i++)
        fprintf(fp, "  segment %u: offset %" PRIu64 ", %" PRIu64 " bytes\n", i,
                p->segments[i].offset, p->segments[i].size);
    if (p->constant_buffer_count)
        fprintf(fp, "  inline constant buffers (deprecated layout): %u\n", p->constant_buffer_count);
    if (p->constant_segment_offsets)
        fprintf(fp, "  constant tensors in segment: %u offsets\n", p->constant_segment_offsets);
    if (p->delegate_data_count)
        fprintf(fp, "  inline delegate blobs: %u\n", p->delegate_data_count);
    if (p->named_data_count)
        fprintf(fp, "  named data entries: %u\n", p->named_data_count);
    for (uint32_t m = 0; m < p->plan_count; m++) {
        const etp_plan *pl = &p->plans[m];
        fprintf(fp, "method %s: %u values, inputs ", pl->name ? pl->name : "(unnamed)", pl->value_count);
        print_ints(fp, pl->inputs, pl->input_count);
        fputs(", outputs ", fp);
        print_ints(fp, pl->outputs, pl->output_count);
        fprintf(fp, ", %u chain%s, %u operator%s, %u delegate%s\n", pl->chain_count,
                pl->chain_count == 1 ? "" : "s", pl->operator_count, pl->operator_count == 1 ? "" : "s",
                pl->delegate_count, pl->delegate_count == 1 ? "" : "s");
        for (uint32_t b = 1; b < pl->buffer_count; b++)
            fprintf(fp, "  planned buffer %u: %" PRId64 " bytes\n", b, pl->buffer_sizes[b]);
        for (uint32_t k = 0; k < pl->delegate_count; k++) {
            const etp_delegate *de = &pl->delegates[k];
            fprintf(fp, "  delegate %u: %s, %s %u", k, de->id ? de->id : "(no id)",
                    de->location == 0 ? "inline" : de->location == 1 ? "segment" : "location?", de->index);
            if (de->size_known)
                fprintf(fp, ", %" PRIu64 " bytes", de->processed_size);
            for (uint32_t s = 0; s < de->compile_spec_count; s++)
                fprintf(fp, "%s%s", s ? ", " : "; compile specs: ",
                        de->compile_specs[s].key ? de->compile_specs[s].key : "?");
            fputc('\n', fp);
        }
        for (uint32_t c = 0; c < pl->chain_count; c++) {
            const etp_chain *ch = &pl->chains[c];
            fprintf(fp, "  chain %u: %u instruction%s\n", c, ch->instruction_count,
                    ch->instruction_count == 1 ? "" : "s");
            for (uint32_t i = 0; i < ch->instruction_count; i++) {
                const etp_instruction *in = &ch->instructions[i];
                fprintf(fp, "    %4u  %-13s", i, etp_instr_kind_name(in->kind));
                if (in->kind == ETP_INSTR_KERNEL)
                    fprintf(fp, " %s", in->a >= 0 && (uint32_t)in->a < pl->operator_count
                                           ? pl->operators[in->a].full_name
                                           : "(operator index out of range)");
                else if (in->kind == ETP_INSTR_DELEGATE)
                    fprintf(fp, " %s", in->a >= 0 && (uint32_t)in->a < pl->delegate_count &&
                                               pl->delegates[in->a].id
                                           ? pl->delegates[in->a].id
                                           : "(delegate index out of range)");
                else if (in->kind == ETP_INSTR_MOVE)
                    fprintf(fp, " %d -> %d", in->a, in->b);
                else if (in->kind == ETP_INSTR_JUMP_FALSE)
                    fprintf(fp, " if !v%d goto %d", in->a, in->b);
                else if (in->kind == ETP_INSTR_FREE)
                    fprintf(fp, " v%d", in->a);
                if (in->arg_count) {
                    fputs("  args ", fp);
                    print_ints(fp, in->args, in->arg_count);
                }
                fputc('\n', fp);
            }
        }
    }
}
