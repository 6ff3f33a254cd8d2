// ProviderSample(); see provider_sample.h.
#include "verify/provider_sample.h"

#include <string>
#include <vector>

#include "common/encoding.h"
#include "common/secret.h"
#include "verify/form.h"
#include "verify/json.h"

namespace hookinbox::verify {

namespace {

using nlohmann::json;

// The providers' own documented deliveries, unsigned (the test vectors of
// presets_vn_ua.cpp; /work/shared/providers-wave2.md cites each).
// VNPay: the `vnpay` library's fixture IPN (spaces as %20: an HTTP client may
// escape '+'), https://sandbox.vnpayment.vn/apis/docs/thanh-toan-pay/pay.html
constexpr std::string_view kVnpay =
    "vnp_Amount=1000000&vnp_BankCode=NCB&vnp_BankTranNo=VNP14422574&vnp_CardType=ATM"
    "&vnp_OrderInfo=Thanh%20toan%20don%20hang&vnp_PayDate=20240521091806&vnp_ResponseCode=00"
    "&vnp_TmnCode=TEST_TMN_CODE&vnp_TransactionNo=14422574&vnp_TransactionStatus=00&vnp_TxnRef=1716257871703";
// MoMo: the notification page's 2021 example body,
// https://developers.momo.vn/v3/docs/payment/api/result-handling/notification
constexpr std::string_view kMomo =
    R"({"partnerCode":"MOMO","orderId":"01234567890123451633504872421",)"
    R"("requestId":"01234567890123451633504872421","amount":1000,"orderInfo":"Test Thue 1234556",)"
    R"("orderType":"momo_wallet","transId":2588659987,"resultCode":0,)"
    R"("message":"Giao d\u1ecbch th\u00e0nh c\u00f4ng.","payType":"qr","responseTime":1633504902954,)"
    R"("extraData":"eyJyZXN1bHRfbmFtZXNwYWNlIjoidW1hcmtldCIsImVycm9yIjoiIiwic3RhdGUiOjZ9"})";
// ZaloPay: the callback page's official example, https://docs.zalopay.vn/docs/specs/callback-api
constexpr std::string_view kZalopay =
    R"({"data":"{\"app_id\":2553,\"app_trans_id\":\"200904_2553_1598435687208\",\"app_time\":1599189392817,)"
    R"(\"app_user\":\"demo\",\"amount\":10000,)"
    R"(\"embed_data\":\"{\\\"merchantinfo\\\":\\\"embeddata123\\\",\\\"promotioninfo\\\":\\\"\\\"}\",)"
    R"(\"item\":\"[{\\\"itemid\\\":\\\"knb\\\",\\\"itemname\\\":\\\"kim nguyen bao\\\",)"
    R"(\\\"itemprice\\\":198400,\\\"itemquantity\\\":1}]\",\"zp_trans_id\":200904000000389,)"
    R"(\"server_time\":1599189413498,\"channel\":38,)"
    R"(\"merchant_user_id\":\"7ZMSl3nEg5sOUJzOLSoUFT8xKNQVaLOLXHB--8Eytqc\",)"
    R"(\"user_fee_amount\":0,\"discount_amount\":0}","type":1})";
// payOS: the signature page's official example,
// https://payos.vn/docs/tich-hop-webhook/kiem-tra-du-lieu-voi-signature/
constexpr std::string_view kPayos =
    R"({"code":"00","desc":"success","success":true,"data":{"accountNumber":"12345678","amount":3000,)"
    R"("code":"00","counterAccountBankId":"","counterAccountBankName":"","counterAccountName":"",)"
    R"("counterAccountNumber":"","currency":"VND","desc":"Th\u00e0nh c\u00f4ng","description":"VQRIO123",)"
    R"("orderCode":123,"paymentLinkId":"124c33293c43417ab7879e14c8d9eb18","reference":"TF230204212323",)"
    R"("transactionDateTime":"2023-02-04 18:25:00","virtualAccountName":"","virtualAccountNumber":""}})";

// `n` random decimal digits, the first non-zero (an order number's shape).
std::string RandomDigits(size_t n) {
  const std::string hex = RandomHex(n);
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    const unsigned v = static_cast<unsigned>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
    out += static_cast<char>('0' + (i == 0 ? 1 + v % 9 : v % 10));
  }
  return out;
}

// A new value shaped like `old`: a number stays a number (13 digits, below
// 2^53 so every JSON reader keeps it exact), a string of digits stays digits
// of the same length, any other string becomes "test_<hex>".
json FreshLike(const json* old) {
  if (old != nullptr && old->is_number()) return std::stoll(RandomDigits(13));
  if (old != nullptr && old->is_string()) {
    const std::string& s = old->get_ref<const std::string&>();
    if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) return RandomDigits(s.size());
  }
  return "test_" + RandomHex(8);
}

// Sets `value` at `pointer` in `doc`; a malformed pointer, or one through a
// scalar, is skipped (config validation refuses those).
void Put(json& doc, const std::string& pointer, json value) {
  if (pointer.empty() || !IsValidJsonPointer(pointer)) return;
  try {
    doc[json::json_pointer(pointer)] = std::move(value);
  } catch (const json::exception&) {
  }
}

// Freshens the key field at `pointer`; "<outer>#<inner>" edits the JSON text at <outer>.
void Freshen(json& doc, const std::string& pointer) {
  const size_t hash = pointer.find("#/");
  if (hash == std::string::npos) {
    Put(doc, pointer, FreshLike(FindPointer(doc, pointer)));
    return;
  }
  const std::string outer = pointer.substr(0, hash);
  const json* text = FindPointer(doc, outer);
  if (text == nullptr || !text->is_string()) return;
  Result<json> inner = ParseJson(text->get_ref<const std::string&>());
  if (!inner.ok()) return;
  Freshen(*inner, pointer.substr(hash + 1));
  Put(doc, outer, inner->dump());
}

// The JSON Pointer a key field names in the body (as a form's object for form bodies).
std::string PointerOf(const std::string& field) {
  if (field.rfind(config::kFormField, 0) == 0) return FormFieldPointer(field.substr(config::kFormField.size()));
  return field;
}

}  // namespace

std::string_view ProviderExample(const config::EndpointConfig& e) {
  if (e.signature.signature_source.empty()) return {};
  if (e.provider == "vnpay") return kVnpay;
  if (e.provider == "momo") return kMomo;
  if (e.provider == "zalopay") return kZalopay;
  if (e.provider == "payos") return kPayos;
  return {};
}

std::string ProviderSample(const config::EndpointConfig& e, std::string_view event_type) {
  const bool form = IsFormBodyKind(e.signature.body_kind);
  json doc = json::object();
  const std::string_view example = ProviderExample(e);
  if (form) {
    Result<std::vector<FormField>> fields = ParseUrlEncoded(example);
    if (fields.ok()) doc = FormFieldsAsJson(*fields);
  } else if (Result<json> parsed = ParseJson(example); parsed.ok()) {
    doc = std::move(parsed).value();
  }
  const std::string type_pointer = PointerOf(e.key.event_type_pointer);
  std::vector<std::string> key_fields = e.key.fields;
  if (!e.key.id_pointer.empty()) key_fields.push_back(e.key.id_pointer);
  for (const std::string& field : key_fields) {
    if (field.rfind(config::kHeaderField, 0) == 0) continue;  // headers are SignDelivery's
    const std::string pointer = PointerOf(field);
    if (pointer != type_pointer) Freshen(doc, pointer);
  }
  if (!event_type.empty() && !type_pointer.empty()) Put(doc, type_pointer, std::string(event_type));
  if (!form) return doc.dump();
  std::string out;
  for (const auto& [name, value] : doc.items()) {
    if (!out.empty()) out += '&';
    out += PercentEncode(name) + "=" + PercentEncode(value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

}  // namespace hookinbox::verify
