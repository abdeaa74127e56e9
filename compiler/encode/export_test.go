package encode

// For the differential tests of the YAML emitter.
var (
	YAMLValue = yamlValue
	EmitYAML  = emitYAML
)
