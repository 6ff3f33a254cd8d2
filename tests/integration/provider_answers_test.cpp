// Providers that deliver by GET and read an answer of their own, through the
// real binary over HTTPS (SPEC §10): a VNPay IPN (a GET, its data in the
// query) is accepted, stored and answered RspCode 00; its resend is a
// duplicate answered 02; a forged one is refused with 97 inside a 200 — the
// rows in the .db say what really happened. GET stays 405 elsewhere. A MoMo
// IPN is answered 204 and a ZaloPay callback with its return_code.
// Signatures are computed here with OpenSSL; the VNPay vector is the `vnpay`
// library's fixture (/work/shared/providers-wave2.md, ✔✔).
#include <catch2/catch.hpp>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "harness.h"

using namespace hookinbox::testing;

namespace {

std::string HmacHex(const EVP_MD* md, const std::string& key, const std::string& data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(md, key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()), data.size(),
       mac, &len);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[mac[i] >> 4];
    out += kHex[mac[i] & 15];
  }
  return out;
}

constexpr const char* kVnpSecret = "test_secret";
const std::string kVnpSigned =
    "vnp_Amount=1000000&vnp_BankCode=NCB&vnp_BankTranNo=VNP14422574&vnp_CardType=ATM"
    "&vnp_OrderInfo=Thanh+toan+don+hang+2024-05-21T02%3A17%3A31.249Z&vnp_PayDate=20240521091806"
    "&vnp_ResponseCode=00&vnp_TmnCode=TEST_TMN_CODE&vnp_TransactionNo=14422574&vnp_TransactionStatus=00"
    "&vnp_TxnRef=1716257871703";
constexpr const char* kZaloKey2 = "kLtgPl8HHhfvMuDHPwKfgfsY4Ydm9eIz";
constexpr const char* kMomoSecret = "K951B6PE1waDMi640xX08PD3vg6EkVlz";

struct AnswerServer {
  Installation inst;
  ServerProcess server{inst};
  AnswerServer() {
    inst.WriteTestConfig(PresetEndpoint("vnpay", "vnpay", kVnpSecret) + PresetEndpoint("zalopay", "zalopay", kZaloKey2) +
                         PresetEndpoint("momo", "momo", kMomoSecret, "[endpoint.signature]\naccess_key = \"F8BBA842ECF85\"\n"));
    server.Start();
  }
  HttpResult Get(const std::string& target) const { return server.Request("GET", target, "", {}, ""); }
  std::string LastDelivery() const {
    return inst.Sql("SELECT outcome || ' ' || http_status FROM webhook_deliveries ORDER BY id DESC LIMIT 1");
  }
};

}  // namespace

TEST_CASE("vnpay: a GET IPN is stored once and answered 00, 02 and 97", "[integration][vn_ua]") {
  AnswerServer s;
  const std::string hash = HmacHex(EVP_sha512(), kVnpSecret, kVnpSigned);
  RegisterLeakMarker(hash);
  // Spaces sent as %20: the test's HTTP client would escape a '+' (VNPay's
  // own spelling, signed the same after decoding; see the unit tests).
  std::string sent = kVnpSigned;
  for (size_t at = sent.find('+'); at != std::string::npos; at = sent.find('+', at)) sent.replace(at, 1, "%20");
  const std::string query = sent + "&vnp_SecureHashType=HmacSHA512&vnp_SecureHash=" + hash;

  HttpResult first = s.Get("/hooks/vnpay?" + query);
  INFO(first.body);
  CHECK(first.status == 200);
  CHECK(first.body == R"({"RspCode":"00","Message":"Confirm Success"})");
  CHECK(s.inst.Sql("SELECT event_id || '|' || event_type FROM webhook_inbox") == "TEST_TMN_CODE:1716257871703|00");
  // The IPN's data is the stored payload, kept whole, as a form body.
  CHECK(s.inst.Sql("SELECT content_type || '|' || length(body) FROM webhook_payloads") ==
        "application/x-www-form-urlencoded|" + std::to_string(query.size()));
  CHECK(s.LastDelivery() == "accepted 200");
  // The audit row keeps the path without the query (it carries the signature).
  CHECK(s.inst.Sql("SELECT method || ' ' || path FROM webhook_deliveries ORDER BY id DESC LIMIT 1") ==
        "GET /hooks/vnpay");

  HttpResult again = s.Get("/hooks/vnpay?" + query);
  INFO(again.body);
  CHECK(again.status == 200);
  CHECK(again.body == R"({"RspCode":"02","Message":"Order already confirmed"})");
  CHECK(s.LastDelivery() == "duplicate 200");
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox") == "1");

  std::string forged = query;
  forged.replace(forged.find("1000000"), 7, "9000000");
  HttpResult refused = s.Get("/hooks/vnpay?" + forged);
  INFO(refused.body);
  CHECK(refused.status == 200);
  CHECK(refused.body == R"({"RspCode":"97","Message":"Invalid Checksum"})");
  CHECK(s.LastDelivery() == "rejected 200");
  CHECK(s.inst.Sql("SELECT reason FROM webhook_deliveries ORDER BY id DESC LIMIT 1") ==
        "unauthenticated: signature mismatch");
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox") == "1");

  // No query at all: not a delivery, refused with the usual status.
  CHECK(s.Get("/hooks/vnpay").status == 400);
  // GET stays refused on an endpoint whose provider does not deliver by GET.
  CHECK(s.Get("/hooks/zalopay?" + query).status == 405);
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox") == "1");
}

TEST_CASE("zalopay and momo: their answers after the claim; a bad mac gets return_code -1", "[integration][vn_ua]") {
  AnswerServer s;
  const std::string data = R"({"app_id":2553,"app_trans_id":"200904_2553_1598435687208","amount":10000})";
  const std::string mac = HmacHex(EVP_sha256(), kZaloKey2, data);
  RegisterLeakMarker(mac);
  const std::string body = nlohmann::json{{"data", data}, {"mac", mac}, {"type", 1}}.dump();
  HttpResult first = s.server.Request("POST", "/hooks/zalopay", body, {});
  CHECK(first.status == 200);
  CHECK(first.body == R"({"return_code":1,"return_message":"success"})");
  HttpResult again = s.server.Request("POST", "/hooks/zalopay", body, {});
  CHECK(again.body == R"({"return_code":2,"return_message":"duplicate"})");
  CHECK(s.LastDelivery() == "duplicate 200");
  const std::string bad = nlohmann::json{{"data", data}, {"mac", std::string(64, '0')}, {"type", 1}}.dump();
  HttpResult refused = s.server.Request("POST", "/hooks/zalopay", bad, {});
  CHECK(refused.status == 200);
  CHECK(refused.body == R"({"return_code":-1,"return_message":"mac not equal"})");
  CHECK(s.LastDelivery() == "rejected 200");
  CHECK(s.inst.Sql("SELECT event_id FROM webhook_inbox WHERE endpoint = 'zalopay'") ==
        "2553:200904_2553_1598435687208");

  const std::string raw =
      "accessKey=F8BBA842ECF85&amount=1000&extraData=&message=Successful.&orderId=ORD1&orderInfo=Order 1"
      "&orderType=momo_wallet&partnerCode=MOMO&payType=qr&requestId=REQ1&responseTime=1633504902954"
      "&resultCode=0&transId=2588659987";
  const std::string sig = HmacHex(EVP_sha256(), kMomoSecret, raw);
  RegisterLeakMarker(sig);
  const std::string momo = R"({"partnerCode":"MOMO","orderId":"ORD1","requestId":"REQ1","amount":1000,)"
                           R"("orderInfo":"Order 1","orderType":"momo_wallet","transId":2588659987,"resultCode":0,)"
                           R"("message":"Successful.","payType":"qr","responseTime":1633504902954,"extraData":"",)"
                           R"("signature":")" + sig + R"("})";
  HttpResult paid = s.server.Request("POST", "/hooks/momo", momo, {});
  CHECK(paid.status == 204);
  CHECK(paid.body.empty());
  CHECK(s.LastDelivery() == "accepted 204");
  CHECK(s.server.Request("POST", "/hooks/momo", momo, {}).status == 204);
  CHECK(s.LastDelivery() == "duplicate 204");
  std::string forged = momo;
  forged.replace(forged.find("\"amount\":1000"), 13, "\"amount\":1001");
  CHECK(s.server.Request("POST", "/hooks/momo", forged, {}).status == 401);
  CHECK(s.LastDelivery() == "rejected 401");
}
