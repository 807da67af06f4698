/* text_numbers.c - see text_numbers.h. */
#include "outputs/report/text_numbers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

etp_colfmt etp_colfmt_for(etp_unit unit, const double *v, size_t n)
{
    etp_colfmt f = {unit, 1.0};
    if (etp_unit_dim(unit) != ETP_DIM_TIME)
        return f;
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && fabs(v[i]) > m)
            m = fabs(v[i]);
    double secs = m * etp_unit_factor(unit, ETP_UNIT_S);
    static const etp_unit order[] = {ETP_UNIT_S, ETP_UNIT_MS, ETP_UNIT_US, ETP_UNIT_NS};
    f.unit = ETP_UNIT_NS;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (secs / etp_unit_factor(order[i], ETP_UNIT_S) >= 1.0) {
            f.unit = order[i];
            break;
        }
    f.factor = etp_unit_factor(unit, f.unit);
    return f;
}

char *etp_format_thousands(double v, char *buf, size_t cap)
{
    char digits[40];
    double r = round(v);
    if (!isfinite(r) || fabs(r) >= 1e18) {
        snprintf(buf, cap, "%.6g", v);
        return buf;
    }
    long long x = (long long)r;
    int neg = x < 0;
    unsigned long long u = neg ? (unsigned long long)(-(x + 1)) + 1 : (unsigned long long)x;
    int n = snprintf(digits, sizeof digits, "%llu", u);
    char out[64];
    size_t o = 0;
    if (neg)
        out[o++] = '-';
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = 0;
    snprintf(buf, cap, "%s", out);
    return buf;
}

char *etp_colfmt_value(const etp_colfmt *f, double v, char *buf, size_t cap)
{
    if (etp_unit_dim(f->unit) == ETP_DIM_CYCLES)
        return etp_format_thousands(v, buf, cap);
    /* Three decimals; a small nonzero value (a table in the unit of its
     * largest value) gets the decimals that show two significant digits,
     * so that it never reads as 0. */
    double x = v * f->factor;
    int decimals = 3;
    while (x != 0 && isfinite(x) && fabs(x) < pow(10, 1 - decimals) && decimals < 12)
        decimals++;
    snprintf(buf, cap, "%.*f", decimals, x);
    return buf;
}
