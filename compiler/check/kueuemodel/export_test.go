package kueuemodel

// HeldAdmits reports whether the memo decided class on flavor up front.
func (k *Memo) HeldAdmits(class, flavor string) bool {
	_, ok := k.admits[class][flavor]
	return ok
}

// HeldRequest reports whether the memo worked out class's request in
// namespace ns up front.
func (k *Memo) HeldRequest(class, ns string) bool {
	_, ok := k.requests[class][k.limits[ns]]
	return ok
}
