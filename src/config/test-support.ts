/** A configuration that passes its check: two drops (local, SFTP), a scheduled inbound job with an expected file, an export. */
export const VALID = `
journal: state/journal.sqlite
services:
  main:
    url: http://127.0.0.1:8080
    token: { env: WIS_TEST_TOKEN }
drops:
  local:
    type: local
    root: ./drop
  partner:
    type: sftp
    host: 127.0.0.1
    port: 2222
    username: wms
    password: { file: secrets/sftp-password }
    host_key_fingerprint: SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
inbound:
  - name: nightly
    drop: partner
    service: main
    schedule: { cron: "0 2 * * *", timezone: Europe/Berlin }
    expect:
      - pattern: "^ADJ_"
        cutoff: { cron: "0 6 * * *", timezone: Europe/Berlin }
exports:
  - name: orders
    work_type: customerShipments
    drop: local
    service: main
    mapping: customer-shipments-export
`;
