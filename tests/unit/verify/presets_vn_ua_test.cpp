// Wave 2 group "vn_ua" (verify/presets_vn_ua.cpp): VNPay, MoMo, ZaloPay,
// payOS and SePay, each loaded through config::LoadString with only the
// provider, the secret and what the provider requires. Deliveries are the
// providers' documented examples where one exists (cited on each test, from
// /work/shared/providers-wave2.md), and are signed here independently with
// OpenSSL's HMAC() (never verify::Hmac).
#include <catch2/catch.hpp>
#include <openssl/evp.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/encoding.h"
#include "preset_test_util.h"
#include "support/openssl_hmac.h"
#include "verify/json.h"
#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;
using namespace hookinbox::verify::test;
using hookinbox::testing::OpensslHmac;

namespace {

constexpr int64_t kNowMs = 1767225600000;  // 2026-01-01T00:00:00Z

// A JSON POST: Verify, then (when it verifies) Identify, as the receive path does.
Status VerifyJson(const config::EndpointConfig& e, const std::string& body, const MapHeaders& h = ToMap({})) {
  return Verify(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", h, body}, kNowMs);
}
Result<EventIdentity> IdentifyJson(const config::EndpointConfig& e, const std::string& body) {
  return Identify(e, ToMap({}), body, true);
}

// A GET whose query is received as the form body (http/receive.cpp ReceiveGet).
MapHeaders FormHeaders() { return MapHeaders{{"Content-Type", "application/x-www-form-urlencoded"}}; }
Status VerifyGet(const config::EndpointConfig& e, const std::string& query) {
  MapHeaders h = FormHeaders();
  return Verify(e, e.secrets, DeliveryView{"GET", "/hooks/hooks", h, query, query}, kNowMs);
}

bool Refused(const Status& s) { return s.code() == Code::kUnauthenticated; }

// --- VNPay ---------------------------------------------------------------

// The `vnpay` library's IPN fixture (test/__helpers__/test-fixtures.ts),
// whose hash was recomputed as documented in providers-wave2.md (✔✔).
const std::string kVnpSecret = "test_secret";
const std::string kVnpSigned =
    "vnp_Amount=1000000&vnp_BankCode=NCB&vnp_BankTranNo=VNP14422574&vnp_CardType=ATM"
    "&vnp_OrderInfo=Thanh+toan+don+hang+2024-05-21T02%3A17%3A31.249Z&vnp_PayDate=20240521091806"
    "&vnp_ResponseCode=00&vnp_TmnCode=TEST_TMN_CODE&vnp_TransactionNo=14422574&vnp_TransactionStatus=00"
    "&vnp_TxnRef=1716257871703";
const std::string kVnpHash =
    "649982421beb422556a1374713c74e58e716ecbd05007c0c0e1f7effdfaf361dbf146889ca446139afe11b9954c4d5c486e99e3b86fcfab6957f"
    "29eb0be72895";

TEST_CASE("vnpay: the documented IPN verifies, identifies and gets VNPay's answers", "[presets][vn_ua]") {
  const config::EndpointConfig e = LoadEndpoint("vnpay", kVnpSecret);
  // The vector is what OpenSSL computes too.
  REQUIRE(HexEncode(OpensslHmac(EVP_sha512(), kVnpSecret, kVnpSigned)) == kVnpHash);
  // VNPay's own order is not sorted, it adds vnp_SecureHashType, and the
  // merchant put a token of its own in the IPN URL: none of it is signed.
  const std::string query = "token=abc&vnp_TxnRef=1716257871703&vnp_Amount=1000000&vnp_BankCode=NCB"
                            "&vnp_BankTranNo=VNP14422574&vnp_CardType=ATM"
                            "&vnp_OrderInfo=Thanh%20toan%20don%20hang%202024-05-21T02:17:31.249Z"
                            "&vnp_PayDate=20240521091806&vnp_ResponseCode=00&vnp_TmnCode=TEST_TMN_CODE"
                            "&vnp_TransactionNo=14422574&vnp_TransactionStatus=00&vnp_SecureHashType=HmacSHA512"
                            "&vnp_SecureHash=" + kVnpHash;
  Status ok = VerifyGet(e, query);
  INFO(ok.ToString());
  CHECK(ok.ok());
  Result<EventIdentity> id = Identify(e, FormHeaders(), query, false);
  REQUIRE(id.ok());
  CHECK(id->event_id == "TEST_TMN_CODE:1716257871703");
  CHECK(id->event_type == "00");
  // The same IPN again: the same key and payload (a duplicate).
  Result<EventIdentity> again = Identify(e, FormHeaders(), query, false);
  CHECK(again->event_id == id->event_id);
  CHECK(again->payload_hash == id->payload_hash);

  // Upper-case hex (some VNPay integrations send it) is the same signature.
  std::string upper = "vnp_SecureHash=";
  for (char c : kVnpHash) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK(VerifyGet(e, kVnpSigned + "&" + upper).ok());

  // The answers SPEC §10 pins, and a GET delivery.
  CHECK(e.get_deliveries);
  CHECK(e.answers.accepted.http_status == 200);
  CHECK(e.answers.accepted.body == R"({"RspCode":"00","Message":"Confirm Success"})");
  CHECK(e.answers.duplicate.body == R"({"RspCode":"02","Message":"Order already confirmed"})");
  CHECK(e.answers.refused.http_status == 200);
  CHECK(e.answers.refused.body == R"({"RspCode":"97","Message":"Invalid Checksum"})");
}

TEST_CASE("vnpay: a changed parameter, another secret or no hash is refused", "[presets][vn_ua]") {
  const config::EndpointConfig e = LoadEndpoint("vnpay", kVnpSecret);
  const std::string hash = "&vnp_SecureHash=" + kVnpHash;
  CHECK(VerifyGet(e, kVnpSigned + hash).ok());
  std::string changed = kVnpSigned;
  changed.replace(changed.find("1000000"), 7, "1000001");  // one byte of the amount
  CHECK(Refused(VerifyGet(e, changed + hash)));
  CHECK(Refused(VerifyGet(e, kVnpSigned + "&vnp_Extra=1" + hash)));  // a vnp_ parameter added
  CHECK(Refused(VerifyGet(LoadEndpoint("vnpay", "another_secret"), kVnpSigned + hash)));
  CHECK(Refused(VerifyGet(e, kVnpSigned)));                       // no hash
  CHECK(Refused(VerifyGet(e, kVnpSigned + "&vnp_SecureHash=zz")));  // not hex
  CHECK(Refused(VerifyGet(e, kVnpSigned + "&vnp_OrderInfo=%zz" + hash)));  // a malformed query
  // Signed with the old SHA-256 (before 2.1.0): refused, VNPay 2.1.0 uses SHA-512.
  CHECK(Refused(VerifyGet(e, kVnpSigned + "&vnp_SecureHash=" +
                                 HexEncode(OpensslHmac(EVP_sha256(), kVnpSecret, kVnpSigned)))));
}

// --- MoMo ----------------------------------------------------------------

// MoMo's 2021 documentation IPN with partnerCode MOMO and the public sandbox
// keys of MoMo's sample repository (self-computed in providers-wave2.md: no
// official vector exists).
const std::string kMomoSecret = "K951B6PE1waDMi640xX08PD3vg6EkVlz";
const std::string kMomoAccess = "F8BBA842ECF85";
const std::string kMomoRaw =
    "accessKey=F8BBA842ECF85&amount=1000&extraData=eyJyZXN1bHRfbmFtZXNwYWNlIjoidW1hcmtldCIsImVycm9yIjoiIiwic3RhdGUiOjZ9"
    "&message=Giao dịch thành công.&orderId=01234567890123451633504872421&orderInfo=Test Thue 1234556"
    "&orderType=momo_wallet&partnerCode=MOMO&payType=qr&requestId=01234567890123451633504872421"
    "&responseTime=1633504902954&resultCode=0&transId=2588659987";

std::string MomoBody(const std::string& signature, int amount = 1000) {
  return R"({"partnerCode":"MOMO","orderId":"01234567890123451633504872421",)"
         R"("requestId":"01234567890123451633504872421","amount":)" +
         std::to_string(amount) +
         R"(,"orderInfo":"Test Thue 1234556","orderType":"momo_wallet","transId":2588659987,"resultCode":0,)"
         R"("message":"Giao dịch thành công.","payType":"qr","responseTime":1633504902954,)"
         R"("extraData":"eyJyZXN1bHRfbmFtZXNwYWNlIjoidW1hcmtldCIsImVycm9yIjoiIiwic3RhdGUiOjZ9",)"
         R"("signature":")" + signature + R"("})";
}

const std::string kMomoExtra = "[endpoint.signature]\naccess_key = \"" + kMomoAccess + "\"\n";

TEST_CASE("momo: the documented IPN verifies and identifies; MoMo gets 204", "[presets][vn_ua]") {
  const std::string sig = HexEncode(OpensslHmac(EVP_sha256(), kMomoSecret, kMomoRaw));
  REQUIRE(sig == "cd822c37841a22f5ccf3da3067d7c3662928f53be58abcb1bd08ff529a9b30c3");
  const config::EndpointConfig e = LoadEndpoint("momo", kMomoSecret, kMomoExtra);
  const std::string body = MomoBody(sig);
  Status ok = VerifyJson(e, body);
  INFO(ok.ToString());
  CHECK(ok.ok());
  Result<EventIdentity> id = IdentifyJson(e, body);
  REQUIRE(id.ok());
  CHECK(id->event_id == "MOMO:01234567890123451633504872421:0");
  CHECK(id->event_type == "0");
  CHECK(IdentifyJson(e, body)->event_id == id->event_id);  // a resend: the same key
  CHECK(e.answers.accepted.http_status == 204);
  CHECK(e.answers.accepted.body.empty());
  CHECK(e.answers.duplicate.http_status == 204);
  CHECK(e.answers.refused.http_status == 0);  // a bad signature gets the usual 401
}

TEST_CASE("momo: a changed field, another secret or key, or no signature is refused", "[presets][vn_ua]") {
  const std::string sig = HexEncode(OpensslHmac(EVP_sha256(), kMomoSecret, kMomoRaw));
  const config::EndpointConfig e = LoadEndpoint("momo", kMomoSecret, kMomoExtra);
  CHECK(Refused(VerifyJson(e, MomoBody(sig, 1001))));
  CHECK(Refused(VerifyJson(LoadEndpoint("momo", "another-secret-key", kMomoExtra), MomoBody(sig))));
  CHECK(Refused(VerifyJson(LoadEndpoint("momo", kMomoSecret, "[endpoint.signature]\naccess_key = \"OTHER\"\n"), MomoBody(sig))));
  CHECK(Refused(VerifyJson(e, MomoBody(""))));
  std::string no_trans = MomoBody(sig);
  no_trans.replace(no_trans.find(R"("transId":2588659987,)"), 21, "");
  CHECK(Refused(VerifyJson(e, no_trans)));  // a signed field missing
  CHECK(Refused(VerifyJson(e, "not json")));
}

TEST_CASE("momo: the preset needs access_key", "[presets][vn_ua]") {
  config::LoadResult loaded = LoadPreset("momo", kMomoSecret);
  CHECK_FALSE(loaded.ok());
  CHECK_THAT(Dump(loaded), Catch::Contains("access_key") && Catch::Contains("required for provider \"momo\""));
}

// --- ZaloPay -------------------------------------------------------------

// ZaloPay's documented callback (sandbox app 2553, public key2), ✔✔ in providers-wave2.md.
const std::string kZaloKey2 = "kLtgPl8HHhfvMuDHPwKfgfsY4Ydm9eIz";
const std::string kZaloData =
    R"({"app_id":2553,"app_trans_id":"200904_2553_1598435687208","app_time":1599189392817,"app_user":"demo",)"
    R"("amount":10000,"embed_data":"{\"merchantinfo\":\"embeddata123\",\"promotioninfo\":\"\"}",)"
    R"("item":"[{\"itemid\":\"knb\",\"itemname\":\"kim nguyen bao\",\"itemprice\":198400,\"itemquantity\":1}]",)"
    R"("zp_trans_id":200904000000389,"server_time":1599189413498,"channel":38,)"
    R"("merchant_user_id":"7ZMSl3nEg5sOUJzOLSoUFT8xKNQVaLOLXHB--8Eytqc","user_fee_amount":0,"discount_amount":0})";

std::string ZaloBody(const std::string& data, const std::string& mac) {
  return nlohmann::json{{"data", data}, {"mac", mac}, {"type", 1}}.dump();
}

TEST_CASE("zalopay: the documented callback verifies and identifies; ZaloPay's return codes", "[presets][vn_ua]") {
  const std::string mac = HexEncode(OpensslHmac(EVP_sha256(), kZaloKey2, kZaloData));
  REQUIRE(mac == "d8d33baf449b31d7f9b94fa50d7c942c08cd4d83f28fa185557da21acb104f67");
  const config::EndpointConfig e = LoadEndpoint("zalopay", kZaloKey2);
  const std::string body = ZaloBody(kZaloData, mac);
  Status ok = VerifyJson(e, body);
  INFO(ok.ToString());
  CHECK(ok.ok());
  Result<EventIdentity> id = IdentifyJson(e, body);
  REQUIRE(id.ok());
  CHECK(id->event_id == "2553:200904_2553_1598435687208");
  CHECK(id->event_type == "1");
  CHECK(IdentifyJson(e, body)->event_id == id->event_id);
  CHECK(e.answers.accepted.body == R"({"return_code":1,"return_message":"success"})");
  CHECK(e.answers.duplicate.body == R"({"return_code":2,"return_message":"duplicate"})");
  CHECK(e.answers.refused.http_status == 200);
  CHECK(e.answers.refused.body == R"({"return_code":-1,"return_message":"mac not equal"})");
}

TEST_CASE("zalopay: a changed data byte, key1 or no mac is refused", "[presets][vn_ua]") {
  const std::string mac = HexEncode(OpensslHmac(EVP_sha256(), kZaloKey2, kZaloData));
  const config::EndpointConfig e = LoadEndpoint("zalopay", kZaloKey2);
  std::string changed = kZaloData;
  changed.replace(changed.find("10000"), 5, "10001");
  CHECK(Refused(VerifyJson(e, ZaloBody(changed, mac))));
  // key1 of the same sandbox app signs requests, not callbacks.
  CHECK(Refused(VerifyJson(LoadEndpoint("zalopay", "PcY4iZIKFCIdgZvA6ueMcMHHUbRLYjPL"), ZaloBody(kZaloData, mac))));
  CHECK(Refused(VerifyJson(e, nlohmann::json{{"data", kZaloData}, {"type", 1}}.dump())));
  CHECK(Refused(VerifyJson(e, nlohmann::json{{"mac", mac}, {"type", 1}}.dump())));  // nothing signed
}

// --- payOS ---------------------------------------------------------------

// payOS's documented webhook (payos.vn "kiem-tra-du-lieu-voi-signature"), ✔✔.
const std::string kPayosKey = "1a54716c8f0efb2744fb28b6e38b25da7f67a925d98bc1c18bd8faaecadd7675";
const std::string kPayosSigned =
    "accountNumber=12345678&amount=3000&code=00&counterAccountBankId=&counterAccountBankName=&counterAccountName="
    "&counterAccountNumber=&currency=VND&desc=Thành công&description=VQRIO123&orderCode=123"
    "&paymentLinkId=124c33293c43417ab7879e14c8d9eb18&reference=TF230204212323"
    "&transactionDateTime=2023-02-04 18:25:00&virtualAccountName=&virtualAccountNumber=";

std::string PayosBody(const std::string& signature, const std::string& counter_name = R"("")",
                      int amount = 3000) {
  return R"({"code":"00","desc":"success","success":true,"data":{"orderCode":123,"amount":)" + std::to_string(amount) +
         R"(,"description":"VQRIO123","accountNumber":"12345678","reference":"TF230204212323",)"
         R"("transactionDateTime":"2023-02-04 18:25:00","currency":"VND",)"
         R"("paymentLinkId":"124c33293c43417ab7879e14c8d9eb18","code":"00","desc":"Thành công",)"
         R"("counterAccountBankId":"","counterAccountBankName":"","counterAccountName":)" +
         counter_name + R"(,"counterAccountNumber":"","virtualAccountName":"","virtualAccountNumber":""},)"
         R"("signature":")" + signature + R"("})";
}

TEST_CASE("payos: the documented webhook verifies and identifies", "[presets][vn_ua]") {
  const std::string sig = HexEncode(OpensslHmac(EVP_sha256(), kPayosKey, kPayosSigned));
  REQUIRE(sig == "412e915d2871504ed31be63c8f62a149a4410d34c4c42affc9006ef9917eaa03");
  const config::EndpointConfig e = LoadEndpoint("payos", kPayosKey);
  const std::string body = PayosBody(sig);
  Status ok = VerifyJson(e, body);
  INFO(ok.ToString());
  CHECK(ok.ok());
  CHECK(VerifyJson(e, PayosBody(sig, "null")).ok());  // null is signed as ""
  Result<EventIdentity> id = IdentifyJson(e, body);
  REQUIRE(id.ok());
  CHECK(id->event_id == "123:TF230204212323");
  CHECK(id->event_type == "00");
  CHECK(IdentifyJson(e, body)->event_id == id->event_id);
  CHECK_FALSE(e.answers.enabled());  // any 2xx: the inbox's own answer
}

TEST_CASE("payos: a changed data field, another key or no signature is refused", "[presets][vn_ua]") {
  const std::string sig = HexEncode(OpensslHmac(EVP_sha256(), kPayosKey, kPayosSigned));
  const config::EndpointConfig e = LoadEndpoint("payos", kPayosKey);
  CHECK(Refused(VerifyJson(e, PayosBody(sig, R"("")", 3001))));
  CHECK(Refused(VerifyJson(e, PayosBody(sig, R"("Nguyen")"))));
  CHECK(Refused(VerifyJson(LoadEndpoint("payos", "another-checksum-key"), PayosBody(sig))));
  CHECK(Refused(VerifyJson(e, PayosBody(""))));
  CHECK(Refused(VerifyJson(e, R"({"data":[],"signature":")" + sig + R"("})")));  // data is not an object
}

// --- SePay ---------------------------------------------------------------

// SePay's documented webhook body (developer.sepay.vn quick start), API-key mode.
const std::string kSepayBody =
    R"({"id":92704,"gateway":"Vietcombank","transactionDate":"2023-03-25 14:02:37","accountNumber":"0123499999",)"
    R"("code":null,"content":"chuyen tien mua iphone","transferType":"in","transferAmount":2277000,)"
    R"("accumulated":19077000,"subAccount":null,"referenceCode":"MBVCB.3278907687","description":""})";

TEST_CASE("sepay: the API key verifies; SePay gets {\"success\":true}", "[presets][vn_ua]") {
  const config::EndpointConfig e = LoadEndpoint("sepay", "sepay-api-key-0123456789");
  MapHeaders h = ToMap({{"Authorization", "Apikey sepay-api-key-0123456789"}});
  Status ok = VerifyJson(e, kSepayBody, h);
  INFO(ok.ToString());
  CHECK(ok.ok());
  Result<EventIdentity> id = IdentifyJson(e, kSepayBody);
  REQUIRE(id.ok());
  CHECK(id->event_id == "92704");
  CHECK(id->event_type == "in");
  CHECK(e.answers.accepted.body == R"({"success":true})");
  CHECK(e.answers.duplicate.body == R"({"success":true})");
  CHECK(e.answers.refused.http_status == 401);
  CHECK(e.redelivery_window_hours == 1);
  // Another key, no header, another scheme word: refused. The key is not a
  // signature over the body, so a changed body is not detectable (documented).
  CHECK(Refused(VerifyJson(e, kSepayBody, ToMap({{"Authorization", "Apikey another-key"}}))));
  CHECK(Refused(VerifyJson(e, kSepayBody, ToMap({}))));
  CHECK(Refused(VerifyJson(e, kSepayBody, ToMap({{"Authorization", "Bearer sepay-api-key-0123456789"}}))));
}

}  // namespace

namespace {

// The store records one status for a new event and a duplicate
// (store/sql_store.cpp), so a preset's two answers must share it.
TEST_CASE("vn_ua presets: accepted and duplicate answers share their status", "[presets][vn_ua]") {
  for (const char* name : {"vnpay", "momo", "zalopay", "payos", "sepay"}) {
    INFO(name);
    const config::EndpointConfig* e = FindPreset(name);
    REQUIRE(e != nullptr);
    CHECK(e->answers.accepted.http_status == e->answers.duplicate.http_status);
    CHECK(e->get_deliveries == (std::string(name) == "vnpay"));
  }
}

}  // namespace
