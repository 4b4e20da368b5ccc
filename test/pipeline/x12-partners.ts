// The X12 tests' two partners and a job routing their sets by profile.

// HLX ships customer orders in cartons, RTL moves stock between warehouses; both send 945s.
export const PARTNERS = `partners:
  HLX:
    them: { qualifier: ZZ, id: HLXWMS }
    us: { qualifier: ZZ, id: WISBRIDGE }
  RTL:
    them: { qualifier: ZZ, id: RTLWMS }
    us: { qualifier: ZZ, id: WISBRIDGE }
    separators: { element: "|", component: "^", segment: "~", repetition: "{", line_break: false }`;
export const ROUTED = `  - name: edi
    drop: wms
    service: wis
    x12:
      - { transaction_set: "945", partner: HLX, mapping: x12-945-customer-shipment-ship-packages }
      - { transaction_set: "945", partner: RTL, mapping: x12-945-outbound-transfer-ship }
      - { transaction_set: "944", partner: RTL, mapping: x12-944-inbound-transfer-receive }
      - { transaction_set: "945", mapping: x12-945-customer-shipment-ship }`;
