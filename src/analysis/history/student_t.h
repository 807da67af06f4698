/* student_t.h - the normal and Student's t distributions, as the regression
 * rules of a run history need them: a critical value that grows when the
 * baseline is short (few runs make a poor estimate of the noise), and the
 * tail probability behind a verdict's confidence. */
#ifndef ETP_STUDENT_T_H
#define ETP_STUDENT_T_H

/* P(Z <= z) for a standard normal Z. */
double etp_normal_cdf(double z);
/* P(T <= t) for Student's t with @p nu > 0 degrees of freedom (need not be
 * an integer); NaN for a NaN argument. */
double etp_student_t_cdf(double t, double nu);
/* The t with P(T <= t) = @p p, for p in (0, 1) and nu > 0; within about
 * 1e-10 relative. */
double etp_student_t_quantile(double p, double nu);

#endif
