/* test_html_escape.c - the one HTML escape every page uses
 * (outputs/html_escape.h): the five markup characters become entities,
 * control bytes other than tab and newline become a space, every other byte
 * (UTF-8 or not) is kept as it is, runs between escapes are written whole;
 * and the diff page (diff.html), which had a rule of its own, now blanks a
 * control byte in a name read from its inputs like the report page does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/diff.h"
#include "etprof/diff_io.h"
#include "outputs/html_escape.h"
#include "testutil.h"

/* What etp_html_escape writes for @p s (caller frees). */
static char *escaped(const char *s)
{
    FILE *fp = tmpfile();
    assert_non_null(fp);
    etp_html_escape(fp, s);
    char *t = tu_stream_text(fp, NULL);
    fclose(fp);
    assert_non_null(t);
    return t;
}

static void expect(const char *in, const char *out)
{
    char *t = escaped(in);
    assert_string_equal(t, out);
    free(t);
}

static void test_markup(void **state)
{
    (void)state;
    expect("", "");
    expect(NULL, "");
    expect("plain text", "plain text");
    expect("a&b", "a&amp;b");
    expect("&amp;", "&amp;amp;"); /* an entity in the input is text, not markup */
    expect("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
    expect("say \"hi\" 'there'", "say &quot;hi&quot; &#39;there&#39;");
    expect("&<>\"'", "&amp;&lt;&gt;&quot;&#39;");
    expect("x=\"\" onmouseover=\"y\"", "x=&quot;&quot; onmouseover=&quot;y&quot;");
}

static void test_control_bytes(void **state)
{
    (void)state;
    expect("tab\there\nnewline", "tab\there\nnewline");
    expect("bell\a, cr\r, esc\x1b[0m", "bell , cr , esc [0m");
    expect("\x01\x02\x1f", "   ");
    /* DEL and C1 bytes are not C0 controls: kept, as before */
    expect("del\x7f", "del\x7f");
    char all[32];
    for (int c = 1; c < 32; c++)
        all[c - 1] = (char)c;
    all[31] = 0;
    char *t = escaped(all);
    assert_int_equal(strlen(t), 31);
    for (int c = 1; c < 32; c++)
        assert_int_equal(t[c - 1], c == '\t' || c == '\n' ? c : ' ');
    free(t);
}

static void test_bytes_kept(void **state)
{
    (void)state;
    /* UTF-8 passes through: a middle dot, an em dash, an emoji */
    expect("a \xc2\xb7 b \xe2\x80\x94 \xf0\x9f\x98\x80", "a \xc2\xb7 b \xe2\x80\x94 \xf0\x9f\x98\x80");
    /* Invalid UTF-8 (a lone continuation byte, a cut-short sequence, an
     * overlong '<', 0xff) is written as it is: only ASCII is rewritten, so
     * an overlong form never turns into markup. */
    expect("\x80 \xe2\x80 \xc0\xbc \xff", "\x80 \xe2\x80 \xc0\xbc \xff");
    expect("\xc3<\xa9", "\xc3&lt;\xa9");
}

/* Long runs with escapes scattered through them come out whole. */
static void test_long_runs(void **state)
{
    (void)state;
    size_t n = 200000;
    char *in = malloc(n + 1);
    assert_non_null(in);
    size_t want = 0;
    uint64_t seed = 7;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = tu_rand(&seed) % 1000;
        in[i] = r == 0 ? '<' : r == 1 ? '\x03' : r == 2 ? '&' : (char)('a' + r % 26);
        want += r == 0 ? 4 : r == 2 ? 5 : 1;
    }
    in[n] = 0;
    char *t = escaped(in);
    assert_int_equal(strlen(t), want);
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i] == '<') {
            assert_memory_equal(t + j, "&lt;", 4);
            j += 4;
        } else if (in[i] == '&') {
            assert_memory_equal(t + j, "&amp;", 5);
            j += 5;
        } else {
            assert_int_equal(t[j], in[i] == '\x03' ? ' ' : in[i]);
            j++;
        }
    }
    free(t);
    free(in);
}

static etp_diff_side *side_with(const char *op)
{
    etp_diff_identity id = tu_diff_identity(2);
    id.label = "side\x02.etdp";
    etp_diff_side *s;
    etp_error err;
    assert_int_equal(etp_diff_side_new(&id, &s, &err), ETP_OK);
    const char *ids[] = {"method_execute", "forward_0_0"};
    for (int k = 0; k < 2; k++) {
        etp_diff_entry e;
        memset(&e, 0, sizeof e);
        e.kind = k ? ETP_DIFF_INSTRUCTION : ETP_DIFF_MODEL;
        e.id = ids[k];
        e.name = k ? "conv\x01<1>" : NULL;
        e.op_type = k ? op : NULL;
        e.available = 1;
        e.additive = 1;
        e.n = 2;
        e.avg = e.p50 = e.min = e.max = 2.0 + k;
        e.basis = k ? NULL : "per execution";
        assert_int_equal(etp_diff_side_add(s, &e, &err), ETP_OK);
    }
    return s;
}

static void test_diff_page_blanks_controls(void **state)
{
    (void)state;
    etp_diff_side *b = side_with("aten::conv"), *n = side_with("aten::conv");
    etp_diff *d;
    etp_error err;
    assert_int_equal(etp_diff_compute(b, n, NULL, &d, &err), ETP_OK);
    size_t len;
    char *html = etp_diff_html(d, 10, &len);
    assert_non_null(html);
    assert_int_equal(strlen(html), len);
    /* The side's label and the row's name: blanked and escaped */
    assert_non_null(strstr(html, "<code>side .etdp</code>"));
    assert_non_null(strstr(html, "title=\"conv &lt;1&gt;\""));
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)html[i];
        assert_true(c >= 0x20 || c == '\n' || c == '\t');
    }
    free(html);
    etp_diff_free(d);
    etp_diff_side_free(b);
    etp_diff_side_free(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_markup),
        cmocka_unit_test(test_control_bytes),
        cmocka_unit_test(test_bytes_kept),
        cmocka_unit_test(test_long_runs),
        cmocka_unit_test(test_diff_page_blanks_controls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
