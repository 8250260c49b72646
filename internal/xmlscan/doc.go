// Package xmlscan is the streaming XML reading the coverage report readers
// share (input/cobertura, input/jacoco): a strict encoding/xml token loop
// that refuses DOCTYPE internal subsets (so no entity is ever declared,
// let alone expanded), never reads a DTD, names FILE:LINE in every error,
// and checks the context now and then; and a sniffer for the root element.
package xmlscan
