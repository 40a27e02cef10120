// Package echofault parses the echo server's fault-injection parameters (delay, status,
// size, close, gzip, header, and Barrage's saturate) in Fortio's syntax and draws from the distributions
// they describe.
//
// A parameter is either a single value, which applies to every request, or a list
// "v1:p1,v2:p2,..." of values with percentages (an optional trailing "%"); the
// remainder up to 100 % means "no injection". Percentages over 100 in total are an
// error. The package knows nothing about HTTP: the echo handler decides what a parse
// error means for each parameter.
package echofault
