/*
 * model/fit.c - what each step of a fork costs, fitted by least squares
 * (GSL's gsl_multifit_linear) over forks of layouts that vary one thing at
 * a time: time = sum over terms of coefficient x count.  Each coefficient
 * comes with its standard error (the square root of the covariance's
 * diagonal, which GSL scales by the residual variance), and the fit with its residual
 * (root mean square, over n - p degrees of freedom) and R squared.
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include "model/model.h"

int fit_least_squares(const double *x, const double *y, size_t observations, size_t terms, struct fit_result *fit,
		      struct error *error)
{
	memset(fit, 0, sizeof(*fit));
	if (terms == 0 || terms > FIT_MOST_TERMS)
		return error_internal(error, NULL, 0, "fit: %zu terms (1 to %d)", terms, FIT_MOST_TERMS);
	if (observations <= terms)
		return error_set(error, NULL, 0, "fit: %zu measurements cannot fit %zu terms with an error", observations,
				 terms);
	gsl_set_error_handler_off();   /* a failure is returned, never an abort */
	gsl_matrix *matrix = gsl_matrix_alloc(observations, terms), *covariance = gsl_matrix_alloc(terms, terms);
	gsl_vector *values = gsl_vector_alloc(observations), *coefficients = gsl_vector_alloc(terms);
	gsl_multifit_linear_workspace *work = gsl_multifit_linear_alloc(observations, terms);
	int status = -1;
	double chi_squared = 0, mean = 0, total = 0;
	if (matrix && covariance && values && coefficients && work) {
		for (size_t i = 0; i < observations; i++) {
			for (size_t j = 0; j < terms; j++)
				gsl_matrix_set(matrix, i, j, x[i * terms + j]);
			gsl_vector_set(values, i, y[i]);
			mean += y[i] / (double)observations;
		}
		status = gsl_multifit_linear(matrix, values, coefficients, covariance, &chi_squared, work);
	}
	if (status) {
		error_internal(error, NULL, 0, "fit: %s", status > 0 ? gsl_strerror(status) : "out of memory");
		status = -1;
	} else {
		/* gsl's covariance is already s^2 (X'X)^-1, s^2 = chi^2 / (n - p) */
		double variance = chi_squared / (double)(observations - terms);
		fit->terms = terms;
		fit->observations = observations;
		for (size_t j = 0; j < terms; j++) {
			fit->coefficients[j] = gsl_vector_get(coefficients, j);
			fit->errors[j] = sqrt(gsl_matrix_get(covariance, j, j));
		}
		for (size_t i = 0; i < observations; i++)
			total += (y[i] - mean) * (y[i] - mean);
		fit->residual = sqrt(variance);
		fit->r_squared = total > 0 ? 1 - chi_squared / total : 1;
	}
	gsl_multifit_linear_free(work);
	gsl_vector_free(coefficients);
	gsl_vector_free(values);
	gsl_matrix_free(covariance);
	gsl_matrix_free(matrix);
	return status;
}

double fit_predict(const struct fit_result *fit, const double *counts)
{
	double sum = 0;
	for (size_t j = 0; j < fit->terms; j++)
		sum += fit->coefficients[j] * counts[j];
	return sum;
}
