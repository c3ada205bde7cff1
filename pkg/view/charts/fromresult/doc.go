// Package fromresult turns results.Result values, measured live or loaded from a recording, into
// the plain inputs of package charts (series, race lanes, roofline points), with their provenance:
// a recorded result becomes a charts.Recorded series noted "<model>, <date>".
//
// It is apart from package charts so that charts depends on nothing but gonum/plot.
package fromresult
