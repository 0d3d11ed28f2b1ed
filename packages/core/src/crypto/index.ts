export {
  base64url,
  fromBase64url,
  hashSecret,
  constantTimeEqual,
  randomId,
  randomToken,
  randomString,
  randomDigits,
  utf8,
  fromUtf8,
} from "./crypto.ts";
