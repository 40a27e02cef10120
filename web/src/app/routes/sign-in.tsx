import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { useAuthMethods } from '@/features/auth/api/get-auth-methods';
import { SignInForm } from '@/features/auth/components/sign-in-form';

export function Component() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = params.get('next');
  // Only same-site paths: never bounce to another origin after sign-in.
  const target = next && next.startsWith('/') && !next.startsWith('//') ? next : '/runs';
  const methods = useAuthMethods();
  if (methods.data?.read_only) return <Navigate to={target} replace />; // nobody signs in here
  return (
    <main style={{ display: 'grid', placeItems: 'center', minHeight: '100vh', padding: 16 }}>
      <SignInForm onSignedIn={() => navigate(target, { replace: true })} ssoFailed={params.get('sso') === 'failed'} />
    </main>
  );
}
