export const echoProfilesKey = (project: string) => ['echo-profiles', project] as const;
export const echoServersKey = (project: string) => ['echo-servers', project] as const;
