// Who asks: the reference's user.Info, shared by authentication, authorization, admission and the
// registry (a CertificateSigningRequest records its requester).

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}
