// The grants on catalog entities (admin/grants.ts serves them), kept apart so that deleting a user or a role
// (admin/users.ts, admin/roles.ts) can take that grantee's grants with it.

export interface Grant {
  granteeType: 'USER' | 'ROLE';
  id: string;
  privileges: string[];
}

/** The grants on each catalog entity, by its id. */
export class GrantStore {
  private readonly byEntity = new Map<string, Grant[]>();

  of(entityId: string): Grant[] {
    return this.byEntity.get(entityId) ?? [];
  }

  set(entityId: string, grants: Grant[]): void {
    this.byEntity.set(entityId, grants);
  }

  /** A user or role deleted holds nothing any more: the service drops its grants with it. */
  forget(granteeId: string): void {
    for (const [entityId, grants] of this.byEntity)
      this.byEntity.set(
        entityId,
        grants.filter((g) => g.id !== granteeId),
      );
  }
}
