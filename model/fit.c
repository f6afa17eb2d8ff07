/*
 * model/fit.c - what each step of a fork costs, fitted over forks of layouts
 * that vary one thing at a time: time = sum over terms of coefficient x count.
 *
 * fit_least_squares: GSL's gsl_multifit_linear.  Each coefficient comes
 * with its standard error (the square root of the covariance's diagonal,
 * which GSL scales by the residual variance), and the fit with its residual
 * (root mean square, over n - p degrees of freedom) and R squared.
 *
 * fit_robust: what the calibration uses on a loaded machine, where one
 * layout timed while another process ran is an outlier that least squares
 * follows (a per-PTE cost of a few hundredths of a microsecond turned
 * negative).  GSL's gsl_multifit_robust with Tukey's bisquare weights gives
 * such a measurement little or no weight.  A step cannot cost less than
 * nothing: a per-step coefficient that still comes out negative is taken
 * out of the fit (its cost is fitted as 0 and the term marked dropped, so
 * the caller says so) and the rest are fitted again, the most negative
 * first, until none is.
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include "model/model.h"

static int check_shape(size_t observations, size_t terms, struct fit_result *fit, struct error *error)
{
	memset(fit, 0, sizeof(*fit));
	if (terms == 0 || terms > FIT_MOST_TERMS)
		return error_internal(error, NULL, 0, "fit: %zu terms (1 to %d)", terms, FIT_MOST_TERMS);
	if (observations <= terms)
		return error_set(error, NULL, 0, "fit: %zu measurements cannot fit %zu terms with an error", observations,
				 terms);
	gsl_set_error_handler_off();   /* a failure is returned, never an abort */
	return 0;
}

/* The matrix of the kept terms' columns and the values, or NULL. */
static gsl_matrix *design_of(const double *x, size_t observations, size_t terms, const bool *dropped, size_t kept)
{
	gsl_matrix *matrix = gsl_matrix_alloc(observations, kept);
	for (size_t i = 0; matrix && i < observations; i++)
		for (size_t j = 0, column = 0; j < terms; j++)
			if (!dropped[j])
				gsl_matrix_set(matrix, i, column++, x[i * terms + j]);
	return matrix;
}

static double r_squared_of(const double *y, size_t observations, double squares)
{
	double mean = 0, total = 0;
	for (size_t i = 0; i < observations; i++)
		mean += y[i] / (double)observations;
	for (size_t i = 0; i < observations; i++)
		total += (y[i] - mean) * (y[i] - mean);
	return total > 0 ? 1 - squares / total : 1;
}

int fit_least_squares(const double *x, const double *y, size_t observations, size_t terms, struct fit_result *fit,
		      struct error *error)
{
	if (check_shape(observations, terms, fit, error))
		return -1;
	const bool none[FIT_MOST_TERMS] = { false };
	gsl_matrix *matrix = design_of(x, observations, terms, none, terms), *covariance = gsl_matrix_alloc(terms, terms);
	gsl_vector_const_view values = gsl_vector_const_view_array(y, observations);
	gsl_vector *coefficients = gsl_vector_alloc(terms);
	gsl_multifit_linear_workspace *work = gsl_multifit_linear_alloc(observations, terms);
	int status = -1;
	double chi_squared = 0;
	if (matrix && covariance && coefficients && work)
		status = gsl_multifit_linear(matrix, &values.vector, coefficients, covariance, &chi_squared, work);
	if (status) {
		error_internal(error, NULL, 0, "fit: %s", status > 0 ? gsl_strerror(status) : "out of memory");
		status = -1;
	} else {
		/* gsl's covariance is already s^2 (X'X)^-1, s^2 = chi^2 / (n - p) */
		fit->terms = terms;
		fit->observations = observations;
		for (size_t j = 0; j < terms; j++) {
			fit->coefficients[j] = gsl_vector_get(coefficients, j);
			fit->errors[j] = sqrt(gsl_matrix_get(covariance, j, j));
		}
		fit->residual = sqrt(chi_squared / (double)(observations - terms));
		fit->r_squared = r_squared_of(y, observations, chi_squared);
	}
	gsl_multifit_linear_free(work);
	gsl_vector_free(coefficients);
	gsl_matrix_free(covariance);
	gsl_matrix_free(matrix);
	return status;
}

/* One robust fit of the terms not dropped; the dropped ones get 0 +- 0. */
static int robust_once(const double *x, const double *y, size_t observations, size_t terms, struct fit_result *fit,
		       struct error *error)
{
	size_t kept = 0;
	for (size_t j = 0; j < terms; j++)
		kept += !fit->dropped[j];
	if (observations <= kept)
		return error_set(error, NULL, 0, "fit: %zu measurements cannot fit %zu terms with an error", observations,
				 kept);
	gsl_matrix *matrix = design_of(x, observations, terms, fit->dropped, kept), *covariance = gsl_matrix_alloc(kept, kept);
	gsl_vector_const_view values = gsl_vector_const_view_array(y, observations);
	gsl_vector *coefficients = gsl_vector_alloc(kept);
	gsl_multifit_robust_workspace *work = gsl_multifit_robust_alloc(gsl_multifit_robust_bisquare, observations, kept);
	int status = -1;
	if (matrix && covariance && coefficients && work) {
		gsl_multifit_robust_maxiter(1000, work);
		status = gsl_multifit_robust(matrix, &values.vector, coefficients, covariance, work);
	}
	if (status) {
		error_internal(error, NULL, 0, "robust fit: %s", status > 0 ? gsl_strerror(status) : "out of memory");
		status = -1;
	} else {
		gsl_multifit_robust_stats stats = gsl_multifit_robust_statistics(work);
		for (size_t j = 0, column = 0; j < terms; j++) {
			fit->coefficients[j] = fit->dropped[j] ? 0 : gsl_vector_get(coefficients, column);
			fit->errors[j] = fit->dropped[j] ? 0 : sqrt(gsl_matrix_get(covariance, column, column));
			column += !fit->dropped[j];
		}
		fit->residual = stats.rmse;
		fit->r_squared = r_squared_of(y, observations, stats.sse);
		fit->outliers = 0;
		for (size_t i = 0; i < observations; i++)
			fit->outliers += gsl_vector_get(stats.weights, i) < 0.5;
	}
	gsl_multifit_robust_free(work);
	gsl_vector_free(coefficients);
	gsl_matrix_free(covariance);
	gsl_matrix_free(matrix);
	return status;
}

int fit_robust(const double *x, const double *y, size_t observations, size_t terms, size_t free_terms,
	       struct fit_result *fit, struct error *error)
{
	if (check_shape(observations, terms, fit, error))
		return -1;
	fit->terms = terms;
	fit->observations = observations;
	fit->robust = true;
	for (;;) {
		if (robust_once(x, y, observations, terms, fit, error))
			return -1;
		/* the most negative step, by how many errors it lies below 0 */
		size_t worst = terms;
		double lowest = 0;
		for (size_t j = free_terms; j < terms; j++) {
			double below = fit->coefficients[j] / (fit->errors[j] > 0 ? fit->errors[j] : 1);
			if (!fit->dropped[j] && fit->coefficients[j] < 0 && below < lowest) {
				lowest = below;
				worst = j;
			}
		}
		if (worst == terms)
			return 0;
		fit->dropped[worst] = true;
		fit->dropped_us[worst] = fit->coefficients[worst];
	}
}

double fit_predict(const struct fit_result *fit, const double *counts)
{
	double sum = 0;
	for (size_t j = 0; j < fit->terms; j++)
		sum += fit->coefficients[j] * counts[j];
	return sum;
}
