/**
 * The example app's DKIM key: a TEST key made for these examples (never use
 * it for real mail), and the DNS records that go with it, which the examples'
 * config hands to inboxkit as its test DNS.
 */
import { createPublicKey } from 'node:crypto';

/** The signing domain (`d=`): the app's From domain, so DMARC aligns. */
export const DKIM_DOMAIN = 'acme.example';

/** The selector (`s=`): the key is published at `acme2026._domainkey.acme.example`. */
export const DKIM_SELECTOR = 'acme2026';

/** A 2048-bit RSA test key, generated for the examples. */
export const DKIM_TEST_PRIVATE_KEY = `-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQCTK9YXbnmiGGgD
rUmTHU9DOmpNMGwSMXuQpYUQ86R0CbwCtNJ6MtlEOQIKhXfVPwZspAlQij1pQghR
zRKlWtjhiky8HHYc+ouiAc0tC8CgkLEQXZbNKX4GHwpSLCuyLE3UnffE9P/kyuXE
YU2fZPuVzOHPjhpHrsJWzE/M5l335vwT3MhjxA0NL7KbwFYXK8Pr+paZxGzYC7sP
16LZ8NwMKDl4yFtO906mWUWKSEpKN45RdMcR2C0HPIduWZ8I2EWAkARpJGHv/lxh
1SuRFDKcSqRF/HmFutz6WWcoNUwUglG2Ji88m/bsy3WmP4QY00pBxWVcF3DCC1z/
Ks+k/hGBAgMBAAECggEAPrLnyF7EChdMxPhABqFvgcwyuoTdHdkf8+1YZfLuxpLZ
GuwPWYktP9/rqzDWby6lHYa7AymJ5TyBD9yGy5SLHndNnryfY1QoRdJvp3fAzocm
MDs3AlvheVkjDAQOb59pXyIXizz3gfEg90ufBr++YUECmOrI7m4ZFGKBwuEH+pMz
vr91k1AcecCpY9PulFmuQoEVD/T3HoWZyLxTtQ87qQIRQyI+/xzvFmC5VIWbHaNU
gI9UF5HryenwfYyEHNXEQ23UkDW3VnwmradauaW4lC298asAC4KDg0tMLNJQQPi6
VYzPjfqJGt7x4wmmcygazccH+lJUt2ATT83E/s/WqwKBgQDEKVmwvKund/24IWNh
m0UdJQnP/zE755b7QQRGLm8IkafPkSIe6ZzXmaoSSdh5vgigotbOdoyJnquV2Hxa
WmcY4hLwh66q3dTqGnEV5ipxd7wQan2d7Vpt22aaloGOoqMUrlWuErlPMmO4IpTr
qfHBP9kVqQdi9ttCmlhwpN6sGwKBgQDAELw9NxTzhLoFQZA/I5tVJj0kk03Eqfo0
SCW6Bifp97SPLLDnGVk3WuDe6fvgmZ7uA2A3nb0lWM6u7FAqsGC5cmYsgN4aPWSw
j3LvTOZ/V9qcBeumORfSIga94SaQ4HZ3nyxVqL7Mqnb0JbZh1YtoVv+G6B2cF84Y
WavxCFuakwKBgQCit1ZB589P5JXfFjsU7TKAgYfJNHtHoMy58G22NbA+4GveHxq5
n7lNkpbkAsOCASOw9ELREr9zLN5SNzi3zkO0/VsOkM5PyCFka7ignMNaSiMDTwKS
bR/U/uj2lKA1jC1Q62gBNGDpE/hp9q2natoyHl9Zu1N4QSMR9WwlTG21PwKBgQC8
sfRuY+ZWlWi470ALeC0MzAO4Imx+Mc0afmNqTs/6Ap3HKE4ozfOj+coB13nZoLPO
/UwTeAqzXXu5yXu9ZQmySF1vjbAnsXdyK4zs4+104Nhq/zoUVfU8QqfC9ygPoCdj
wOMqyR2jMDqsBT0ZA1byTL7BSNyGVbDqpXbS2LY+twKBgHFnCrXOhWGrx/IQt6/b
kUZB+Nk6LETpugf0ObsYSuVNG//RnCWWdkOHSeMH6GUL23EyBdSxrQRyXjL7e/9B
UgBLA/PQtg3dEhMEMX/NDbEQE6BpjYKZkW4aSKA9IaomY4wETVCT0TdL0RtvJCBZ
T3V7LVgZVflU6O2Re6mWvP1s
-----END PRIVATE KEY-----`;

/**
 * The records a receiving server would find for the app, as a test DNS:
 * the DKIM public key, SPF allowing the local app's address, and a DMARC policy.
 */
export function exampleDns(): Record<string, string> {
  const publicKey = createPublicKey(DKIM_TEST_PRIVATE_KEY).export({ type: 'spki', format: 'der' }).toString('base64');
  return {
    [`${DKIM_SELECTOR}._domainkey.${DKIM_DOMAIN}`]: `v=DKIM1; k=rsa; p=${publicKey}`,
    [DKIM_DOMAIN]: 'v=spf1 ip4:127.0.0.1 -all',
    [`_dmarc.${DKIM_DOMAIN}`]: 'v=DMARC1; p=reject',
  };
}
