/* utc_time.c - UTC milliseconds and RFC 3339 text (util/utc_time.h). Civil
 * dates are converted with the days-from-civil arithmetic of the proleptic
 * Gregorian calendar, not through the C library's time zone machinery. */
#include "util/utc_time.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

int64_t etp_utc_now_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts))
        return -1;
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* @p v (0 <= v < 10^n) as @p n decimal digits, zero-padded, at @p out. */
static void put_digits(char *out, int v, int n)
{
    for (int i = n - 1; i >= 0; i--, v /= 10)
        out[i] = (char)('0' + v % 10);
}

int etp_utc_format_ms(int64_t ms, char *out, size_t size)
{
    int64_t days = ms >= 0 ? ms / 86400000 : -((-ms + 86399999) / 86400000);
    int64_t rest = ms - days * 86400000;
    int64_t y;
    int m, d;
    civil_from_days(days, &y, &m, &d);
    if (y < 0 || y > 9999 || size < 25)
        return -1;
    int h = (int)(rest / 3600000), mi = (int)(rest / 60000 % 60), s = (int)(rest / 1000 % 60);
    /* Digits written directly: a trend writes this for every point, and
     * snprintf was a tenth of the time of `db trend --json`. */
    put_digits(out, (int)y, 4);
    out[4] = '-';
    put_digits(out + 5, m, 2);
    out[7] = '-';
    put_digits(out + 8, d, 2);
    out[10] = 'T';
    put_digits(out + 11, h, 2);
    out[13] = ':';
    put_digits(out + 14, mi, 2);
    out[16] = ':';
    put_digits(out + 17, s, 2);
    out[19] = '.';
    put_digits(out + 20, (int)(rest % 1000), 3);
    out[23] = 'Z';
    out[24] = '\0';
    return 0;
}

/* @p n decimal digits at *@p p as a number; advances *@p p. -1 if not digits. */
static int digits(const char **p, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (c < '0' || c > '9')
            return -1;
        v = v * 10 + (c - '0');
    }
    *p += n;
    return v;
}

static int month_days(int64_t y, int m)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return days[m - 1] + (m == 2 && leap);
}

int etp_utc_parse_ms(const char *s, int64_t *ms)
{
    const char *p = s;
    int y = digits(&p, 4);
    if (y < 0 || *p++ != '-')
        return -1;
    int mo = digits(&p, 2);
    if (mo < 1 || mo > 12 || *p++ != '-')
        return -1;
    int d = digits(&p, 2);
    if (d < 1 || d > month_days(y, mo))
        return -1;
    int64_t t = days_from_civil(y, mo, d) * 86400000;
    if (!*p) {
        *ms = t;
        return 0;
    }
    if (*p != 'T' && *p != 't' && *p != ' ')
        return -1;
    p++;
    int h = digits(&p, 2);
    if (h < 0 || h > 23 || *p++ != ':')
        return -1;
    int mi = digits(&p, 2);
    if (mi < 0 || mi > 59)
        return -1;
    int sec = 0, milli = 0;
    if (*p == ':') {
        p++;
        sec = digits(&p, 2);
        if (sec < 0 || sec > 60) /* 60: a leap second, read as the next second */
            return -1;
        if (*p == '.') {
            p++;
            if (*p < '0' || *p > '9')
                return -1;
            for (int i = 0; *p >= '0' && *p <= '9'; i++, p++)
                if (i < 3)
                    milli += (*p - '0') * (i == 0 ? 100 : i == 1 ? 10 : 1);
        }
    }
    t += ((int64_t)h * 3600 + mi * 60 + sec) * 1000 + milli;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '+' ? 1 : -1;
        int oh = digits(&p, 2);
        if (oh < 0 || oh > 23 || *p++ != ':')
            return -1;
        int om = digits(&p, 2);
        if (om < 0 || om > 59)
            return -1;
        t -= sign * ((int64_t)oh * 3600 + om * 60) * 1000;
    } else {
        return -1;
    }
    if (*p)
        return -1;
    *ms = t;
    return 0;
}
