/* student_t.c - the t distribution through the regularised incomplete beta
 * function: P(|T| > t) = I_x(nu/2, 1/2) with x = nu / (nu + t^2). The beta
 * function's continued fraction (Abramowitz & Stegun 26.5.8) is evaluated
 * with the modified Lentz method; the quantile is found by Newton steps kept
 * inside a bracket, so it always converges. */
#include <math.h>

#include "analysis/history/student_t.h"

#define TINY 1e-300
#define EPS 1e-15

double etp_normal_cdf(double z)
{
    return 0.5 * erfc(-z / sqrt(2.0));
}

/* The continued fraction of I_x(a, b), for x < (a + 1) / (a + b + 2) where
 * it converges fast. */
static double beta_fraction(double x, double a, double b)
{
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < TINY)
        d = TINY;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        /* The even then the odd term of the fraction. */
        for (int odd = 0; odd < 2; odd++) {
            double num = odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
                             : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
            d = 1.0 + num * d;
            if (fabs(d) < TINY)
                d = TINY;
            c = 1.0 + num / c;
            if (fabs(c) < TINY)
                c = TINY;
            d = 1.0 / d;
            h *= d * c;
            if (odd && fabs(d * c - 1.0) < EPS)
                return h;
        }
    }
    return h;
}

/* The regularised incomplete beta function I_x(a, b). */
static double incomplete_beta(double x, double a, double b)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1.0) / (a + b + 2.0))
        return front * beta_fraction(x, a, b) / a;
    return 1.0 - front * beta_fraction(1.0 - x, b, a) / b;
}

double etp_student_t_cdf(double t, double nu)
{
    if (isnan(t) || !(nu > 0))
        return NAN;
    if (isinf(t))
        return t > 0 ? 1.0 : 0.0;
    double tail = 0.5 * incomplete_beta(nu / (nu + t * t), nu / 2.0, 0.5);
    return t > 0 ? 1.0 - tail : tail;
}

static double student_t_pdf(double t, double nu)
{
    return exp(lgamma((nu + 1) / 2) - lgamma(nu / 2) - 0.5 * log(nu * M_PI) -
               (nu + 1) / 2 * log1p(t * t / nu));
}

double etp_student_t_quantile(double p, double nu)
{
    if (!(p > 0 && p < 1) || !(nu > 0))
        return NAN;
    if (p < 0.5)
        return -etp_student_t_quantile(1.0 - p, nu);
    if (p == 0.5)
        return 0;
    /* Bracket [lo, hi] with cdf(lo) < p <= cdf(hi), then Newton inside it
     * (a step that would leave the bracket bisects instead). */
    double lo = 0, hi = 1;
    while (etp_student_t_cdf(hi, nu) < p && hi < 1e300)
        hi *= 2;
    double t = hi / 2;
    for (int i = 0; i < 200; i++) {
        double f = etp_student_t_cdf(t, nu) - p;
        if (f < 0)
            lo = t;
        else
            hi = t;
        double next = t - f / student_t_pdf(t, nu);
        if (!(next > lo && next < hi))
            next = (lo + hi) / 2;
        if (fabs(next - t) <= 1e-12 * fabs(t) || hi - lo <= 1e-12 * hi)
            return next;
        t = next;
    }
    return t;
}
