// Wave 2, group "vn_ua": Vietnam's and Ukraine's payment providers.
//
// These providers sign fields inside the delivery rather than the raw body,
// put the signature in the body or the query, and read a particular answer.
// Each row is data over the generic knobs: signature_source, {field:…},
// {sorted_fields} with field_join, {access_key} (verify/signed_fields.h), the
// provider's answers and GET deliveries (EndpointConfig::answers,
// get_deliveries). Facts and vectors: /work/shared/providers-wave2.md; the
// URLs read are on each row and in docs/providers.md.
//
// None of these providers documents a freshness window, and they resend the
// same signed body on retries, so no row checks a timestamp.
#include "verify/preset_rows.h"

// Designated initializers name only what a provider sets (registry.cpp says why).
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace hookinbox::verify::presets {

using config::EndpointConfig;
using config::ProviderAnswer;

namespace {

ProviderAnswer Json200(std::string body) { return {.http_status = 200, .body = std::move(body)}; }

// VNPay IPN v2.1.0: a GET whose query carries every vnp_* parameter and
// vnp_SecureHash = hex HMAC-SHA512(vnp_HashSecret, the vnp_* parameters but
// vnp_SecureHash/vnp_SecureHashType, sorted, each name=value re-encoded as
// PHP urlencode(), joined with '&') — VNPay's PHP demo, and the community
// `vnpay` library whose fixture is the test vector. Parameters the merchant
// added to the IPN URL are not vnp_* and stay out of the signed string. The
// answer is always 200 with RspCode 00 (confirmed), 02 (already confirmed)
// or 97 (invalid checksum). Docs: https://sandbox.vnpayment.vn/apis/docs/thanh-toan-pay/pay.html
// (IPN section seen only in part). Unverified: VNPay's retry count and
// schedule; whether VNPay sends empty parameters (the PHP demo signs them as
// "k=", which is what this does).
EndpointConfig Vnpay() {
  EndpointConfig e = WithTypes(
      Endpoint({.algorithm = "sha512",
                .signed_payload = "{sorted_fields}",
                .body_kind = "form",
                .signature_source = "form:vnp_SecureHash",
                .field_join = {.source = "form",
                               .include_prefix = "vnp_",
                               .exclude = {"vnp_SecureHash", "vnp_SecureHashType"},
                               .value_encoding = "php-urlencode"}},
               // vnp_TxnRef is unique per terminal (per day ~): the terminal belongs in the key.
               {.fields = {"form:vnp_TmnCode", "form:vnp_TxnRef"}, .event_type_pointer = "/vnp_ResponseCode"}),
      {"application/x-www-form-urlencoded"});
  e.get_deliveries = true;
  e.answers = {.accepted = Json200(R"({"RspCode":"00","Message":"Confirm Success"})"),
               .duplicate = Json200(R"({"RspCode":"02","Message":"Order already confirmed"})"),
               .refused = Json200(R"({"RspCode":"97","Message":"Invalid Checksum"})")};
  return e;
}

// MoMo AIO v2 payment IPN: POST JSON; body field `signature` = hex
// HMAC-SHA256(secretKey, the fixed 13-field string below, raw UTF-8 values,
// numbers as sent). accessKey is not in the body: the endpoint sets
// signature.access_key. MoMo wants HTTP 204. One order can notify twice
// (authorised 9000, then captured 0), so resultCode is in the key. Docs:
// https://developers.momo.vn/v3/docs/payment/api/result-handling/notification
// and …/payment/api/other/signature. Unverified: retries for payment IPN;
// the 15 s vs 30 s answer deadline (two versions of the page).
EndpointConfig Momo() {
  EndpointConfig e = Endpoint(
      {.signed_payload = "accessKey={access_key}&amount={field:/amount}&extraData={field:/extraData}"
                         "&message={field:/message}&orderId={field:/orderId}&orderInfo={field:/orderInfo}"
                         "&orderType={field:/orderType}&partnerCode={field:/partnerCode}&payType={field:/payType}"
                         "&requestId={field:/requestId}&responseTime={field:/responseTime}"
                         "&resultCode={field:/resultCode}&transId={field:/transId}",
       .signature_source = "json:/signature"},
      {.fields = {"/partnerCode", "/orderId", "/resultCode"}, .event_type_pointer = "/resultCode"});
  const ProviderAnswer no_content{.http_status = 204};
  e.answers = {.accepted = no_content, .duplicate = no_content};  // a bad signature: the usual 401
  return e;
}

// ZaloPay v2 order callback: POST JSON {"data":"<JSON text>","mac":…,"type":1};
// mac = hex HMAC-SHA256(key2, the data string exactly as received). Only
// `data` is signed (`type` is not). Sent for successful payments only.
// Answers: return_code 1 (success), 2 (duplicate), -1 (bad mac, no retry).
// Docs: https://docs.zalopay.vn/docs/specs/callback-api (official vector in
// the test). Unverified: the retry count (≤3 after return_code 0, sample comments only).
EndpointConfig Zalopay() {
  EndpointConfig e = Endpoint({.signed_payload = "{field:/data}", .signature_source = "json:/mac"},
                              {.fields = {"/data#/app_id", "/data#/app_trans_id"}, .event_type_pointer = "/type"});
  e.answers = {.accepted = Json200(R"({"return_code":1,"return_message":"success"})"),
               .duplicate = Json200(R"({"return_code":2,"return_message":"duplicate"})"),
               .refused = Json200(R"({"return_code":-1,"return_message":"mac not equal"})")};
  return e;
}

// payOS: POST JSON {"code","desc","success","data":{…},"signature"};
// signature = hex HMAC-SHA256(checksumKey, the members of `data` sorted by
// name, "k=v" joined with '&', not URL-encoded, null as ""). The top-level
// code/desc/success are not signed. Any 2xx answers. Docs:
// https://payos.vn/docs/tich-hop-webhook/kiem-tra-du-lieu-voi-signature/ (official
// vector in the test). Unverified: retries; the SDK also writes the strings
// "null"/"undefined" as "" (not done here: such a value fails verification).
EndpointConfig Payos() {
  return Endpoint({.signed_payload = "{sorted_fields}",
                   .signature_source = "json:/signature",
                   .field_join = {.source = "json:/data"}},
                  {.fields = {"/data/orderCode", "/data/reference"}, .event_type_pointer = "/data/code"});
}

// SePay bank-transfer webhook, "API Key" authentication: header
// `Authorization: Apikey <key>`, compared in constant time. SePay wants 200
// (or 201) with {"success": true}; it retries 7 times over about 33 minutes
// (1, 1, 2, 3, 5, 8, 13 min). Docs: https://developer.sepay.vn/en/sepay-webhooks
// (…/xac-thuc, …/xu-ly-loi). The HMAC mode's signed string is unverified
// (integrator code only), so it is not a preset.
EndpointConfig Sepay() {
  EndpointConfig e = Endpoint({.scheme = "token", .header = "Authorization", .format = "Apikey {signature}"},
                              {.id_pointer = "/id", .event_type_pointer = "/transferType"});
  e.answers = {.accepted = Json200(R"({"success":true})"),
               .duplicate = Json200(R"({"success":true})"),
               .refused = {.http_status = 401, .body = R"({"success":false})"}};
  e.redelivery_window_hours = 1;
  return e;
}

}  // namespace

void AddVnUaPresets(std::vector<Preset>& t) {
  t.push_back({{"vnpay"}, Vnpay(), "VNPay merchant portal → terminal (TmnCode) → vnp_HashSecret"});
  t.push_back({{"momo"}, Momo(), "MoMo Business → Integration information → secretKey (and accessKey)"});
  t.push_back({{"zalopay"}, Zalopay(), "ZaloPay merchant portal → app → Key2 (the callback key)"});
  t.push_back({{"payos"}, Payos(), "payOS → payment channel → Checksum Key"});
  t.push_back({{"sepay"}, Sepay(), "SePay → Integrations → WebHooks → authentication API Key"});
}

}  // namespace hookinbox::verify::presets
