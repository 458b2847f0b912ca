// Resources a key's permissions name, free of server imports so the dashboard bundle can list them too.
export const RESOURCES = ['contacts', 'companies', 'deals', 'pipelines', 'tasks', 'activities', 'webhooks'] as const;
export type Resource = (typeof RESOURCES)[number];
