// verify/provider_sample.h — send-test's sample for endpoints whose
// signature covers the provider's own fields (VNPay, MoMo, ZaloPay, payOS),
// which a generic sample lacks.
//
// Owns: turning the preset's documented example delivery into a fresh one:
// each key field (except the event type's) gets a new value of the same
// shape, so every send-test run is a new event, and the event type is set
// only when the caller named one (the example keeps the provider's own
// success code otherwise). VNPay's example is form text; the others JSON.
// The signature is added afterwards by SignDelivery. Pure apart from the
// random values; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "config/config.h"

namespace hookinbox::verify {

// The provider's documented example delivery, unsigned, for a preset whose
// signature is inside the delivery (signature_source set); empty for any
// other endpoint. Form text for VNPay, JSON for the others.
std::string_view ProviderExample(const config::EndpointConfig& endpoint);

// The sample for `endpoint` from ProviderExample (which must not be empty).
// `event_type` empty keeps the example's type. A key field "<outer>#<inner>"
// (ZaloPay's /data#/app_trans_id) is changed inside the JSON text at <outer>.
// A key field the example lacks is added as a string.
std::string ProviderSample(const config::EndpointConfig& endpoint, std::string_view event_type);

}  // namespace hookinbox::verify
