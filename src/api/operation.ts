// The kinds of write admission tells apart (the reference's admission.Operation).
export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
