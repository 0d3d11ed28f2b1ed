export { DeviceCookies, deviceIdentifier, deviceLockKey } from "./device-cookies.ts";
export type { KnownDevice, DeviceCredential } from "./device-cookies.ts";
