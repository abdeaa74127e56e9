package derive

// AdmittedRequest is admittedRequest, for the tests that hold it to the
// checker's reading of the rendered tree.
var AdmittedRequest = admittedRequest
