// A model of the reference's internal Go types (pkg/apis/core, 1.25) for the values its diffs
// print: field names and order, pointer-ness, type names. JSON values convert to Go values with
// Go's zero values for absent fields. Types not modelled here are inferred from the JSON.
import { isObject } from '../../json.js';

export type GoType =
  | { kind: 'string' | 'int' | 'bool'; name: string }
  | { kind: 'ptr'; elem: GoType }
  | { kind: 'slice'; elem: GoType }
  | { kind: 'map'; elem: GoType; name: string; stringerKeys: boolean }
  | { kind: 'struct'; name: string; fields: GoField[] }
  | { kind: 'quantity' };

export interface GoField {
  name: string;
  json: string;
  type: GoType;
  /** Embedded struct: its fields are inline in the JSON object. */
  embedded: boolean;
}

/** A Go value: primitives, nil (pointers, slices, maps), lists, ordered maps, structs, quantities. */
export type GoValue =
  | { kind: 'prim'; value: string | number | boolean }
  | { kind: 'nil' }
  | { kind: 'ptr'; elem: GoValue }
  | { kind: 'slice'; items: GoValue[] }
  | { kind: 'map'; entries: Array<[string, GoValue]> }
  | { kind: 'struct'; fields: GoValue[] }
  | { kind: 'quantity'; text: string };

// Internal structs of the pod spec: "GoName:json:Type", embedded structs as "^Type".
const STRUCTS: Record<string, string> = {
  PodSpec: `Volumes:volumes:[]Volume InitContainers:initContainers:[]Container Containers:containers:[]Container
    EphemeralContainers:ephemeralContainers:[]EphemeralContainer RestartPolicy:restartPolicy:RestartPolicy
    TerminationGracePeriodSeconds:terminationGracePeriodSeconds:*int64 ActiveDeadlineSeconds:activeDeadlineSeconds:*int64
    DNSPolicy:dnsPolicy:DNSPolicy NodeSelector:nodeSelector:map[string]string ServiceAccountName:serviceAccountName:string
    AutomountServiceAccountToken:automountServiceAccountToken:*bool NodeName:nodeName:string SecurityContext:securityContext:*PodSecurityContext
    ImagePullSecrets:imagePullSecrets:[]LocalObjectReference Hostname:hostname:string Subdomain:subdomain:string
    SetHostnameAsFQDN:setHostnameAsFQDN:*bool Affinity:affinity:*Affinity SchedulerName:schedulerName:string
    Tolerations:tolerations:[]Toleration HostAliases:hostAliases:[]HostAlias PriorityClassName:priorityClassName:string
    Priority:priority:*int32 PreemptionPolicy:preemptionPolicy:*PreemptionPolicy DNSConfig:dnsConfig:*PodDNSConfig
    ReadinessGates:readinessGates:[]PodReadinessGate RuntimeClassName:runtimeClassName:*string Overhead:overhead:ResourceList
    EnableServiceLinks:enableServiceLinks:*bool TopologySpreadConstraints:topologySpreadConstraints:[]TopologySpreadConstraint OS:os:*PodOS`,
  Container: `Name:name:string Image:image:string Command:command:[]string Args:args:[]string WorkingDir:workingDir:string
    Ports:ports:[]ContainerPort EnvFrom:envFrom:[]EnvFromSource Env:env:[]EnvVar Resources:resources:ResourceRequirements
    VolumeMounts:volumeMounts:[]VolumeMount VolumeDevices:volumeDevices:[]VolumeDevice LivenessProbe:livenessProbe:*Probe
    ReadinessProbe:readinessProbe:*Probe StartupProbe:startupProbe:*Probe Lifecycle:lifecycle:*Lifecycle
    TerminationMessagePath:terminationMessagePath:string TerminationMessagePolicy:terminationMessagePolicy:TerminationMessagePolicy
    ImagePullPolicy:imagePullPolicy:PullPolicy SecurityContext:securityContext:*SecurityContext Stdin:stdin:bool
    StdinOnce:stdinOnce:bool TTY:tty:bool`,
  EphemeralContainer: '^EphemeralContainerCommon TargetContainerName:targetContainerName:string',
  ContainerPort: 'Name:name:string HostPort:hostPort:int32 ContainerPort:containerPort:int32 Protocol:protocol:Protocol HostIP:hostIP:string',
  EnvFromSource: 'Prefix:prefix:string ConfigMapRef:configMapRef:*ConfigMapEnvSource SecretRef:secretRef:*SecretEnvSource',
  ConfigMapEnvSource: '^LocalObjectReference Optional:optional:*bool',
  SecretEnvSource: '^LocalObjectReference Optional:optional:*bool',
  EnvVar: 'Name:name:string Value:value:string ValueFrom:valueFrom:*EnvVarSource',
  EnvVarSource: `FieldRef:fieldRef:*ObjectFieldSelector ResourceFieldRef:resourceFieldRef:*ResourceFieldSelector
    ConfigMapKeyRef:configMapKeyRef:*ConfigMapKeySelector SecretKeyRef:secretKeyRef:*SecretKeySelector`,
  ObjectFieldSelector: 'APIVersion:apiVersion:string FieldPath:fieldPath:string',
  ResourceFieldSelector: 'ContainerName:containerName:string Resource:resource:string Divisor:divisor:Quantity',
  ConfigMapKeySelector: '^LocalObjectReference Key:key:string Optional:optional:*bool',
  SecretKeySelector: '^LocalObjectReference Key:key:string Optional:optional:*bool',
  ResourceRequirements: 'Limits:limits:ResourceList Requests:requests:ResourceList',
  VolumeMount: `Name:name:string ReadOnly:readOnly:bool MountPath:mountPath:string SubPath:subPath:string
    MountPropagation:mountPropagation:*MountPropagationMode SubPathExpr:subPathExpr:string`,
  VolumeDevice: 'Name:name:string DevicePath:devicePath:string',
  Probe: `^ProbeHandler InitialDelaySeconds:initialDelaySeconds:int32 TimeoutSeconds:timeoutSeconds:int32 PeriodSeconds:periodSeconds:int32
    SuccessThreshold:successThreshold:int32 FailureThreshold:failureThreshold:int32 TerminationGracePeriodSeconds:terminationGracePeriodSeconds:*int64`,
  ProbeHandler: 'Exec:exec:*ExecAction HTTPGet:httpGet:*HTTPGetAction TCPSocket:tcpSocket:*TCPSocketAction GRPC:grpc:*GRPCAction',
  LifecycleHandler: 'Exec:exec:*ExecAction HTTPGet:httpGet:*HTTPGetAction TCPSocket:tcpSocket:*TCPSocketAction',
  Lifecycle: 'PostStart:postStart:*LifecycleHandler PreStop:preStop:*LifecycleHandler',
  ExecAction: 'Command:command:[]string',
  HTTPGetAction: 'Path:path:string Port:port:IntOrString Host:host:string Scheme:scheme:URIScheme HTTPHeaders:httpHeaders:[]HTTPHeader',
  HTTPHeader: 'Name:name:string Value:value:string',
  TCPSocketAction: 'Port:port:IntOrString Host:host:string',
  GRPCAction: 'Port:port:int32 Service:service:*string',
  IntOrString: 'Type:type:int IntVal:intVal:int32 StrVal:strVal:string',
  SecurityContext: `Capabilities:capabilities:*Capabilities Privileged:privileged:*bool SELinuxOptions:seLinuxOptions:*SELinuxOptions
    WindowsOptions:windowsOptions:*WindowsSecurityContextOptions RunAsUser:runAsUser:*int64 RunAsGroup:runAsGroup:*int64
    RunAsNonRoot:runAsNonRoot:*bool ReadOnlyRootFilesystem:readOnlyRootFilesystem:*bool AllowPrivilegeEscalation:allowPrivilegeEscalation:*bool
    ProcMount:procMount:*ProcMountType SeccompProfile:seccompProfile:*SeccompProfile`,
  Capabilities: 'Add:add:[]Capability Drop:drop:[]Capability',
  SELinuxOptions: 'User:user:string Role:role:string Type:type:string Level:level:string',
  WindowsSecurityContextOptions: `GMSACredentialSpecName:gmsaCredentialSpecName:*string GMSACredentialSpec:gmsaCredentialSpec:*string
    RunAsUserName:runAsUserName:*string HostProcess:hostProcess:*bool`,
  SeccompProfile: 'Type:type:SeccompProfileType LocalhostProfile:localhostProfile:*string',
  PodSecurityContext: `HostNetwork:hostNetwork:bool HostPID:hostPID:bool HostIPC:hostIPC:bool ShareProcessNamespace:shareProcessNamespace:*bool
    HostUsers:hostUsers:*bool SELinuxOptions:seLinuxOptions:*SELinuxOptions WindowsOptions:windowsOptions:*WindowsSecurityContextOptions
    RunAsUser:runAsUser:*int64 RunAsGroup:runAsGroup:*int64 RunAsNonRoot:runAsNonRoot:*bool SupplementalGroups:supplementalGroups:[]int64
    FSGroup:fsGroup:*int64 FSGroupChangePolicy:fsGroupChangePolicy:*PodFSGroupChangePolicy Sysctls:sysctls:[]Sysctl
    SeccompProfile:seccompProfile:*SeccompProfile`,
  Sysctl: 'Name:name:string Value:value:string',
  LocalObjectReference: 'Name:name:string',
  Affinity: 'NodeAffinity:nodeAffinity:*NodeAffinity PodAffinity:podAffinity:*PodAffinity PodAntiAffinity:podAntiAffinity:*PodAntiAffinity',
  NodeAffinity: `RequiredDuringSchedulingIgnoredDuringExecution:requiredDuringSchedulingIgnoredDuringExecution:*NodeSelector
    PreferredDuringSchedulingIgnoredDuringExecution:preferredDuringSchedulingIgnoredDuringExecution:[]PreferredSchedulingTerm`,
  NodeSelector: 'NodeSelectorTerms:nodeSelectorTerms:[]NodeSelectorTerm',
  NodeSelectorTerm: 'MatchExpressions:matchExpressions:[]NodeSelectorRequirement MatchFields:matchFields:[]NodeSelectorRequirement',
  NodeSelectorRequirement: 'Key:key:string Operator:operator:NodeSelectorOperator Values:values:[]string',
  PreferredSchedulingTerm: 'Weight:weight:int32 Preference:preference:NodeSelectorTerm',
  PodAffinity: `RequiredDuringSchedulingIgnoredDuringExecution:requiredDuringSchedulingIgnoredDuringExecution:[]PodAffinityTerm
    PreferredDuringSchedulingIgnoredDuringExecution:preferredDuringSchedulingIgnoredDuringExecution:[]WeightedPodAffinityTerm`,
  PodAntiAffinity: `RequiredDuringSchedulingIgnoredDuringExecution:requiredDuringSchedulingIgnoredDuringExecution:[]PodAffinityTerm
    PreferredDuringSchedulingIgnoredDuringExecution:preferredDuringSchedulingIgnoredDuringExecution:[]WeightedPodAffinityTerm`,
  PodAffinityTerm: `LabelSelector:labelSelector:*LabelSelector Namespaces:namespaces:[]string TopologyKey:topologyKey:string
    NamespaceSelector:namespaceSelector:*LabelSelector`,
  WeightedPodAffinityTerm: 'Weight:weight:int32 PodAffinityTerm:podAffinityTerm:PodAffinityTerm',
  LabelSelector: 'MatchLabels:matchLabels:map[string]string MatchExpressions:matchExpressions:[]LabelSelectorRequirement',
  LabelSelectorRequirement: 'Key:key:string Operator:operator:LabelSelectorOperator Values:values:[]string',
  Toleration: 'Key:key:string Operator:operator:TolerationOperator Value:value:string Effect:effect:TaintEffect TolerationSeconds:tolerationSeconds:*int64',
  HostAlias: 'IP:ip:string Hostnames:hostnames:[]string',
  PodDNSConfig: 'Nameservers:nameservers:[]string Searches:searches:[]string Options:options:[]PodDNSConfigOption',
  PodDNSConfigOption: 'Name:name:string Value:value:*string',
  PodReadinessGate: 'ConditionType:conditionType:PodConditionType',
  TopologySpreadConstraint: `MaxSkew:maxSkew:int32 TopologyKey:topologyKey:string WhenUnsatisfiable:whenUnsatisfiable:UnsatisfiableConstraintAction
    LabelSelector:labelSelector:*LabelSelector MinDomains:minDomains:*int32 NodeAffinityPolicy:nodeAffinityPolicy:*NodeInclusionPolicy
    NodeTaintsPolicy:nodeTaintsPolicy:*NodeInclusionPolicy MatchLabelKeys:matchLabelKeys:[]string`,
  PodOS: 'Name:name:OSName',
  Volume: 'Name:name:string ^VolumeSource',
  VolumeSource: `HostPath:hostPath:*HostPathVolumeSource EmptyDir:emptyDir:*EmptyDirVolumeSource GCEPersistentDisk:gcePersistentDisk:*?
    AWSElasticBlockStore:awsElasticBlockStore:*? GitRepo:gitRepo:*GitRepoVolumeSource Secret:secret:*SecretVolumeSource NFS:nfs:*NFSVolumeSource
    ISCSI:iscsi:*? Glusterfs:glusterfs:*? PersistentVolumeClaim:persistentVolumeClaim:*PersistentVolumeClaimVolumeSource RBD:rbd:*?
    Quobyte:quobyte:*? FlexVolume:flexVolume:*? Cinder:cinder:*? CephFS:cephfs:*? Flocker:flocker:*? DownwardAPI:downwardAPI:*DownwardAPIVolumeSource
    FC:fc:*? AzureFile:azureFile:*? ConfigMap:configMap:*ConfigMapVolumeSource VsphereVolume:vsphereVolume:*? AzureDisk:azureDisk:*?
    PhotonPersistentDisk:photonPersistentDisk:*? Projected:projected:*ProjectedVolumeSource PortworxVolume:portworxVolume:*? ScaleIO:scaleIO:*?
    StorageOS:storageos:*? CSI:csi:*CSIVolumeSource Ephemeral:ephemeral:*?`,
  HostPathVolumeSource: 'Path:path:string Type:type:*HostPathType',
  EmptyDirVolumeSource: 'Medium:medium:StorageMedium SizeLimit:sizeLimit:*Quantity',
  GitRepoVolumeSource: 'Repository:repository:string Revision:revision:string Directory:directory:string',
  SecretVolumeSource: 'SecretName:secretName:string Items:items:[]KeyToPath DefaultMode:defaultMode:*int32 Optional:optional:*bool',
  ConfigMapVolumeSource: '^LocalObjectReference Items:items:[]KeyToPath DefaultMode:defaultMode:*int32 Optional:optional:*bool',
  KeyToPath: 'Key:key:string Path:path:string Mode:mode:*int32',
  NFSVolumeSource: 'Server:server:string Path:path:string ReadOnly:readOnly:bool',
  PersistentVolumeClaimVolumeSource: 'ClaimName:claimName:string ReadOnly:readOnly:bool',
  DownwardAPIVolumeSource: 'Items:items:[]DownwardAPIVolumeFile DefaultMode:defaultMode:*int32',
  DownwardAPIVolumeFile: 'Path:path:string FieldRef:fieldRef:*ObjectFieldSelector ResourceFieldRef:resourceFieldRef:*ResourceFieldSelector Mode:mode:*int32',
  ProjectedVolumeSource: 'Sources:sources:[]VolumeProjection DefaultMode:defaultMode:*int32',
  VolumeProjection: `Secret:secret:*SecretProjection DownwardAPI:downwardAPI:*DownwardAPIProjection ConfigMap:configMap:*ConfigMapProjection
    ServiceAccountToken:serviceAccountToken:*ServiceAccountTokenProjection`,
  SecretProjection: '^LocalObjectReference Items:items:[]KeyToPath Optional:optional:*bool',
  ConfigMapProjection: '^LocalObjectReference Items:items:[]KeyToPath Optional:optional:*bool',
  DownwardAPIProjection: 'Items:items:[]DownwardAPIVolumeFile',
  ServiceAccountTokenProjection: 'Audience:audience:string ExpirationSeconds:expirationSeconds:int64 Path:path:string',
  PersistentVolumeClaimSpec: `AccessModes:accessModes:[]PersistentVolumeAccessMode Selector:selector:*LabelSelector
    Resources:resources:ResourceRequirements VolumeName:volumeName:string StorageClassName:storageClassName:*string
    VolumeMode:volumeMode:*PersistentVolumeMode DataSource:dataSource:*TypedLocalObjectReference DataSourceRef:dataSourceRef:*TypedLocalObjectReference`,
  TypedLocalObjectReference: 'APIGroup:apiGroup:*string Kind:kind:string Name:name:string',
  PersistentVolumeSource: `GCEPersistentDisk:gcePersistentDisk:*? AWSElasticBlockStore:awsElasticBlockStore:*? HostPath:hostPath:*HostPathVolumeSource
    Glusterfs:glusterfs:*? NFS:nfs:*NFSVolumeSource RBD:rbd:*? Quobyte:quobyte:*? ISCSI:iscsi:*? FlexVolume:flexVolume:*? Cinder:cinder:*?
    CephFS:cephfs:*? FC:fc:*? Flocker:flocker:*? AzureFile:azureFile:*? VsphereVolume:vsphereVolume:*? AzureDisk:azureDisk:*?
    PhotonPersistentDisk:photonPersistentDisk:*? PortworxVolume:portworxVolume:*? ScaleIO:scaleIO:*? Local:local:*? StorageOS:storageos:*? CSI:csi:*?`,
  CSIVolumeSource: `Driver:driver:string ReadOnly:readOnly:*bool FSType:fsType:*string VolumeAttributes:volumeAttributes:map[string]string
    NodePublishSecretRef:nodePublishSecretRef:*LocalObjectReference`,
};
STRUCTS['EphemeralContainerCommon'] = STRUCTS['Container']!;

// Packages of the types not in core.
const PACKAGES: Record<string, string> = { LabelSelector: 'v1', LabelSelectorRequirement: 'v1', LabelSelectorOperator: 'v1', IntOrString: 'intstr' };
const qualified = (name: string): string => `${PACKAGES[name] ?? 'core'}.${name}`;

const cache = new Map<string, GoType>();

/** A type expression of the DSL: *T, []T, map[string]string, ResourceList, Quantity, primitives, structs, named strings; `?` is inferred. */
function parseType(expr: string): GoType {
  if (expr.startsWith('*')) return { kind: 'ptr', elem: parseType(expr.slice(1)) };
  if (expr.startsWith('[]')) return { kind: 'slice', elem: parseType(expr.slice(2)) };
  switch (expr) {
    case 'string':
      return { kind: 'string', name: 'string' };
    case 'bool':
      return { kind: 'bool', name: 'bool' };
    case 'int':
    case 'int32':
    case 'int64':
      return { kind: 'int', name: expr };
    case 'map[string]string':
      return { kind: 'map', elem: { kind: 'string', name: 'string' }, name: 'map[string]string', stringerKeys: false };
    case 'ResourceList':
      return { kind: 'map', elem: { kind: 'quantity' }, name: 'core.ResourceList', stringerKeys: true };
    case 'Quantity':
      return { kind: 'quantity' };
    case '?':
      return INFERRED;
  }
  return structType(expr) ?? { kind: 'string', name: qualified(expr) };
}

/** Marks a type to infer from the JSON value (sources not modelled here). */
const INFERRED: GoType = { kind: 'struct', name: '?', fields: [] };

export function structType(name: string): GoType | undefined {
  const cached = cache.get(name);
  if (cached) return cached;
  const spec = STRUCTS[name];
  if (spec === undefined) return undefined;
  const type: GoType = { kind: 'struct', name: qualified(name), fields: [] };
  cache.set(name, type);
  for (const token of spec.split(/\s+/).filter(Boolean)) {
    if (token.startsWith('^')) {
      const embedded = token.slice(1);
      type.fields.push({ name: embedded, json: '', type: structType(embedded)!, embedded: true });
    } else {
      const [goName, json, typeExpr] = token.split(':') as [string, string, string];
      type.fields.push({ name: goName, json, type: parseType(typeExpr), embedded: false });
    }
  }
  return type;
}

/** Go's spelling of a type (value.TypeString, unqualified). */
export function typeName(t: GoType): string {
  switch (t.kind) {
    case 'ptr':
      return `*${typeName(t.elem)}`;
    case 'slice':
      return `[]${typeName(t.elem)}`;
    case 'quantity':
      return 'resource.Quantity';
    default:
      return t.name;
  }
}

/** A struct type for JSON objects of types not modelled: fields by JSON name, in name order. */
function inferStruct(values: unknown[]): GoType {
  const keys = [...new Set(values.filter(isObject).flatMap((v) => Object.keys(v)))].sort();
  return {
    kind: 'struct',
    name: '?',
    fields: keys.map((k) => {
      const sample = values.filter(isObject).map((v) => v[k]).find((v) => v !== undefined && v !== null);
      return { name: k.charAt(0).toUpperCase() + k.slice(1), json: k, type: inferType(sample, values.filter(isObject).map((v) => v[k])), embedded: false };
    }),
  };
}

function inferType(sample: unknown, all: unknown[]): GoType {
  if (typeof sample === 'string') return { kind: 'string', name: 'string' };
  if (typeof sample === 'number') return { kind: 'int', name: 'int' };
  if (typeof sample === 'boolean') return { kind: 'bool', name: 'bool' };
  if (Array.isArray(sample)) return { kind: 'slice', elem: inferType(sample.find((v) => v !== null), all.flatMap((v) => (Array.isArray(v) ? v : []))) };
  if (isObject(sample)) return { kind: 'ptr', elem: inferStruct(all) };
  return { kind: 'string', name: 'string' };
}

/** Resolves inferred types against the values being compared (both sides, so fields line up). */
export function resolve(t: GoType, values: unknown[]): GoType {
  if (t === INFERRED) return inferStruct(values);
  if (t.kind === 'ptr' && t.elem === INFERRED) return { kind: 'ptr', elem: inferStruct(values) };
  return t;
}

/** JSON → Go value of type t (absent fields are Go zero values; nil for pointers, slices, maps). */
export function toGo(t: GoType, json: unknown): GoValue {
  switch (t.kind) {
    case 'string':
      return { kind: 'prim', value: typeof json === 'string' ? json : '' };
    case 'int':
      return { kind: 'prim', value: typeof json === 'number' ? json : 0 };
    case 'bool':
      return { kind: 'prim', value: json === true };
    case 'quantity':
      return { kind: 'quantity', text: json === undefined || json === null ? '' : String(json) };
    case 'ptr':
      return json === undefined || json === null ? { kind: 'nil' } : { kind: 'ptr', elem: toGo(resolve(t.elem, [json]), json) };
    case 'slice':
      return Array.isArray(json) ? { kind: 'slice', items: json.map((v) => toGo(t.elem, v)) } : { kind: 'nil' };
    case 'map':
      return isObject(json) ? { kind: 'map', entries: Object.keys(json).sort().map((k) => [k, toGo(t.elem, json[k])]) } : { kind: 'nil' };
    case 'struct': {
      if (t.name === INT_OR_STRING_NAME) return intOrString(json);
      const o = isObject(json) ? json : {};
      return { kind: 'struct', fields: t.fields.map((f) => toGo(f.type, f.embedded ? o : o[f.json])) };
    }
  }
}

/** intstr.IntOrString: {Type: 0, IntVal} for numbers, {Type: 1, StrVal} for strings. */
function intOrString(json: unknown): GoValue {
  const prim = (value: string | number): GoValue => ({ kind: 'prim', value });
  if (typeof json === 'string') return { kind: 'struct', fields: [prim(1), prim(0), prim(json)] };
  return { kind: 'struct', fields: [prim(0), prim(typeof json === 'number' ? json : 0), prim('')] };
}

/** The IntOrString type, as its package names it. */
export const INT_OR_STRING_NAME = 'intstr.IntOrString';

/** Go's IsZero on a value. */
export function isZero(v: GoValue): boolean {
  switch (v.kind) {
    case 'nil':
      return true;
    case 'prim':
      return v.value === '' || v.value === 0 || v.value === false;
    case 'struct':
      return v.fields.every(isZero);
    case 'quantity':
      return v.text === '';
    default:
      return false;
  }
}
