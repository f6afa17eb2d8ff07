/*
 * The fit of each step's cost (model/fit.c) on synthetic measurements whose
 * coefficients are known: exact data gives them back exactly; data with a
 * known disturbance gives them back within their stated errors, and the
 * residual is the disturbance's own size.
 */
#include <math.h>
#include <string.h>

#include "model/model.h"
#include "test.h"

/* time = 80 us per fork + 1.5 per VMA + 0.9 per PTE page + 0.02 per PTE,
 * over layouts varying one thing at a time from a base, as calibrate does */
static const double truth[4] = { 80, 1.5, 0.9, 0.02 };
static const double layouts[][4] = {
	{ 1, 140, 10, 100 }, { 1, 240, 10, 100 }, { 1, 340, 10, 100 }, { 1, 540, 10, 100 },
	{ 1, 140, 20, 100 }, { 1, 140, 40, 100 }, { 1, 140, 80, 100 },
	{ 1, 140, 10, 600 }, { 1, 140, 10, 2100 }, { 1, 140, 10, 5100 },
};
#define LAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

static double time_of(const double *counts)
{
	double sum = 0;
	for (size_t j = 0; j < 4; j++)
		sum += truth[j] * counts[j];
	return sum;
}

static void test_exact(void)
{
	double y[LAYOUTS];
	for (size_t i = 0; i < LAYOUTS; i++)
		y[i] = time_of(layouts[i]);
	struct fit_result fit;
	struct error error;
	CU_ASSERT_EQUAL_FATAL(fit_least_squares(&layouts[0][0], y, LAYOUTS, 4, &fit, &error), 0);
	for (size_t j = 0; j < 4; j++) {
		CU_ASSERT(fabs(fit.coefficients[j] - truth[j]) < 1e-9 * (1 + truth[j]));
		CU_ASSERT(fit.errors[j] < 1e-6);
	}
	CU_ASSERT(fit.residual < 1e-6);
	CU_ASSERT(fabs(fit.r_squared - 1) < 1e-12);
	/* a layout held out of the fit: 80 + 1.5 x 400 + 0.9 x 50 + 0.02 x 3000 = 785 */
	const double held_out[4] = { 1, 400, 50, 3000 };
	CU_ASSERT(fabs(fit_predict(&fit, held_out) - 785) < 1e-6);
}

static void test_disturbed(void)
{
	/* +-2 us alternating: zero mean, known size */
	double y[LAYOUTS];
	for (size_t i = 0; i < LAYOUTS; i++)
		y[i] = time_of(layouts[i]) + (i % 2 ? 2 : -2);
	struct fit_result fit;
	struct error error;
	CU_ASSERT_EQUAL_FATAL(fit_least_squares(&layouts[0][0], y, LAYOUTS, 4, &fit, &error), 0);
	for (size_t j = 0; j < 4; j++) {
		CU_ASSERT(fit.errors[j] > 0);
		CU_ASSERT(fabs(fit.coefficients[j] - truth[j]) < 3 * fit.errors[j]);
	}
	/* residual: sqrt(RSS / (10 - 4)); RSS is at most 10 x 2^2 */
	CU_ASSERT(fit.residual > 0 && fit.residual <= sqrt(40.0 / 6) + 1e-9);
	CU_ASSERT(fit.r_squared > 0.99 && fit.r_squared < 1);
	CU_ASSERT_EQUAL(fit.observations, LAYOUTS);
}

/* A straight line, whose slope's standard error has a closed form:
 * s / sqrt(sum (x - mean)^2), s^2 = RSS / (n - 2). */
static void test_line_error(void)
{
	double x[6][2], y[6], mean = 3.5, spread = 0;
	const double disturbance[6] = { 1, -1, -1, 1, 1, -1 };
	for (int i = 0; i < 6; i++) {
		x[i][0] = 1;
		x[i][1] = i + 1;
		y[i] = 2 * (i + 1) + 1 + disturbance[i];
		spread += (i + 1 - mean) * (i + 1 - mean);
	}
	struct fit_result fit;
	struct error error;
	CU_ASSERT_EQUAL_FATAL(fit_least_squares(&x[0][0], y, 6, 2, &fit, &error), 0);
	/* the residuals worked out: slope and intercept refitted by the formulas */
	double sxy = 0, rss = 0;
	for (int i = 0; i < 6; i++)
		sxy += (i + 1 - mean) * (y[i] - (2 * mean + 1));
	double slope = sxy / spread, intercept = (2 * mean + 1) - slope * mean;
	for (int i = 0; i < 6; i++)
		rss += (y[i] - intercept - slope * (i + 1)) * (y[i] - intercept - slope * (i + 1));
	CU_ASSERT(fabs(fit.coefficients[1] - slope) < 1e-9);
	CU_ASSERT(fabs(fit.coefficients[0] - intercept) < 1e-9);
	CU_ASSERT(fabs(fit.residual - sqrt(rss / 4)) < 1e-9);
	CU_ASSERT(fabs(fit.errors[1] - sqrt(rss / 4) / sqrt(spread)) < 1e-9);
}

static void test_refused(void)
{
	struct fit_result fit;
	struct error error;
	double y[4] = { 1, 2, 3, 4 };
	CU_ASSERT_EQUAL(fit_least_squares(&layouts[0][0], y, 4, 4, &fit, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "4 measurements cannot fit 4 terms"));
	CU_ASSERT_EQUAL(fit_least_squares(&layouts[0][0], y, 4, 0, &fit, &error), -1);
}

void suite_fit(void)
{
	ADD_SUITE("fit", test_exact, test_disturbed, test_line_error, test_refused);
}
