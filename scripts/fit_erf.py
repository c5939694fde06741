#!/usr/bin/python3
"""The coefficients of el__erff (nn/op_fastmath.h): erf(x) = x P(x^2) / Q(x^2),
P and Q of degree 5 in x^2, Q's constant 1, fitted to double erf on [0, 3.95]
(beyond it erf is 1 in float) by linearised least squares, y Q(x^2) = x P(x^2),
reweighted 30 times towards the largest errors (an approximation of minimax).
Prints the coefficients as C literals, highest degree first as the Horner
steps use them, and the fit's maximum error in double and in float.

    /usr/bin/python3 scripts/fit_erf.py
"""
from math import erf

import numpy as np

XS = np.linspace(0.0, 3.95, 20001)
Y = np.array([erf(v) for v in XS])
DEGREE = 5


def fit(weights):
    x2 = XS ** 2
    cols = [XS * x2 ** i for i in range(DEGREE + 1)] + [-Y * x2 ** j for j in range(1, DEGREE + 1)]
    a = np.stack(cols, 1) * weights[:, None]
    c, *_ = np.linalg.lstsq(a, Y * weights, rcond=None)
    return c[:DEGREE + 1], np.concatenate([[1.0], c[DEGREE + 1:]])


def evaluate(p, q, x, dtype):
    x = x.astype(dtype)
    x2 = x * x
    num = np.full_like(x, p[-1], dtype=dtype)
    for c in p[-2::-1]:
        num = num * x2 + dtype(c)
    den = np.full_like(x, q[-1], dtype=dtype)
    for c in q[-2::-1]:
        den = den * x2 + dtype(c)
    return x * num / den


def main():
    w = np.ones_like(XS)
    p, q = fit(w)
    for _ in range(30):
        e = np.abs(evaluate(p, q, XS, np.float64) - Y)
        w = w * (1 + e / e.max())
        p, q = fit(w)
    assert (p > 0).all() and (q > 0).all(), "a coefficient is not positive: Q may have a pole"
    print("P (x^10 .. x^0):", ", ".join("%.9ef" % c for c in p[::-1]))
    print("Q (x^10 .. x^0):", ", ".join("%.9ef" % c for c in q[::-1]))
    print("max |error|: double %.2e, float %.2e" % (np.abs(evaluate(p, q, XS, np.float64) - Y).max(),
                                                    np.abs(evaluate(p, q, XS, np.float32) - Y).max()))


if __name__ == "__main__":
    main()
